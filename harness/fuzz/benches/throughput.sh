#!/bin/sh
# Throughput of `mcpspec fuzz server` against the built-in reference server
# over stdio, release build: prints execs/s (one process, one session reused
# until an oracle trips; a fresh session every 50 000 execs, see run::SESSION_EXECS).
#
#   harness/fuzz/benches/throughput.sh [RUNS] [SEED]
#
# No timing assertions: this is a figure to watch, not a test.
set -eu
runs="${1:-50000}"
seed="${2:-1}"
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
cargo build --release -q -p mcpspec
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$root/target/release/mcpspec" fuzz server --seed "$seed" --runs "$runs" \
    --json "$out/summary.json" --report-dir "$out/reports" >/dev/null 2>"$out/progress"
python3 - "$out/summary.json" <<'PY' 2>/dev/null || cat "$out/summary.json"
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{d['execs']} execs in {d['seconds']:.2f} s: {d['execs_per_sec']:.0f} execs/s "
      f"({d['sessions']} sessions, {len(d['findings'])} findings)")
PY
