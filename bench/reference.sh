#!/usr/bin/env bash
# The runner's schedule against the built-in reference, no registry needed (issue #18):
# the full server suite over stdio (`mcpspec server`) and over Streamable HTTP
# (`mcpspec server --url` against `mcpspec reference server --http`), each printing
# wall, peak RSS, the critical path (the longest case) and the sum of case durations.
# The goal is wall <= 1.5 x the critical path. Timings live here, never in unit tests.
#
#   MCPSPEC=$CARGO_TARGET_DIR/debug/mcpspec bench/reference.sh
#   EXTRA="--jobs 4" bench/reference.sh     # extra arguments for both runs
#
# Needs GNU time (/usr/bin/time) and python3. A second run in the same WORK directory
# starts from the first run's measured durations (report.json), as a user's would.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
MCPSPEC=${MCPSPEC:-$repo/target/debug/mcpspec}
work=${WORK:-$repo/target/speed-reference}
mkdir -p "$work"
read -r -a extra <<<"${EXTRA:-}"

measure() {
    local name=$1
    shift
    /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.log" 2>&1 || true
}

summarise() {
    python3 - "$work" "$1" <<'EOF'
import json, sys
work, name = sys.argv[1], sys.argv[2]
wall, rss = open(f"{work}/{name}.time").read().strip().splitlines()[-1].split()[:2]
wall, rss = float(wall), int(rss) / 1024
rep = json.load(open(f"{work}/{name}/report.json"))
cases = rep["results"]
d = [r["duration_ms"] / 1000 for r in cases]
outcomes = {}
for r in cases:
    outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
print(f"{name}: {len(cases)} cases {outcomes}")
print(f"  wall {wall:.2f} s, peak RSS {rss:.0f} MB")
print(f"  critical path (longest case) {max(d):.2f} s: wall / critical path = {wall/max(d):.2f}")
print(f"  sum of case durations {sum(d):.1f} s: parallelism achieved = {sum(d)/wall:.1f}")
EOF
}

echo "== stdio, the reference server =="
measure stdio "$MCPSPEC" server --report-dir "$work/stdio" --no-progress "${extra[@]}"
summarise stdio

echo "== Streamable HTTP, the reference server on 127.0.0.1 =="
"$MCPSPEC" reference server --http 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    [ -s "$work/server.out" ] && break
    sleep 0.1
done
addr=$(head -n1 "$work/server.out" | grep -o '127\.0\.0\.1:[0-9]*' | head -n1)
measure http "$MCPSPEC" server --url "http://$addr/mcp" --report-dir "$work/http" --no-progress "${extra[@]}"
summarise http
