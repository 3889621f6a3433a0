#!/usr/bin/env bash
# Speed and footprint against the anchors, in one run (issue #18). Prints ratios;
# timings live here, never in unit tests (these machines are shared and noisy).
#
# Installs into a scratch directory (from the registries): the official suite
# @modelcontextprotocol/conformance at 0.1.16 and 0.2.0-alpha.12,
# @modelcontextprotocol/server-everything, Node 22 when the machine's Node is
# older, and mcp-fuzzer 0.7.0 in a venv. Then, against server-everything:
#
#   - Streamable HTTP on 127.0.0.1: each official version, then `mcpspec server --url`,
#     in ROUNDS interleaved rounds (default 3): the median wall, cases/s and peak RSS of
#     each, and their ratios; mcpspec's wall against its critical path (the longest case)
#     and the sum of its case durations, and its verdicts against a run's with
#     `--isolate` (a session per case);
#   - the built-in reference over stdio (`mcpspec server`): wall against its critical path;
#   - stdio: `mcpspec server -- mcp-server-everything stdio`: wall against the start-up
#     bound (the start-ups one process per case makes, counted in the --isolate run, x the
#     CPU one server start-up costs / cores) and against its critical path,
#     and its verdicts against the same run's with `--isolate`;
#   - fuzzing over stdio: `mcpspec fuzz server` execs/s against mcp-fuzzer's;
#   - the wire codec against serde_json (`cargo bench -p mcpspec-wire --bench codec`).
#
#   bench/speed.sh                        # builds the shipped mcpspec (--profile dist) if MCPSPEC is unset
#   MCPSPEC=target/dist/mcpspec SKIP_STDIO=1 bench/speed.sh   # without the long stdio run
#   ROUNDS=5 bench/speed.sh               # five HTTP rounds instead of three
#
# Needs GNU time (/usr/bin/time), python3 with venv, npm.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# The pins (bumping one is a reviewed change).
official_old=@modelcontextprotocol/conformance@0.1.16
official_new=@modelcontextprotocol/conformance@0.2.0-alpha.12
everything=@modelcontextprotocol/server-everything@2026.8.31
fuzzer=mcp-fuzzer==0.7.0
node_pin=node@22
# 60 s, about as long as the mcp-fuzzer run below; a run sends one line over 16 MiB
# (the generator cuts later ones), which costs server-everything several seconds.
fuzz_seconds=${FUZZ_SECONDS:-60}

work=${WORK:-$repo/target/speed}
mkdir -p "$work"
work=$(cd "$work" && pwd)
if [ -z "${MCPSPEC:-}" ]; then
    cargo build --profile dist --locked -q -p mcpspec
    MCPSPEC=$repo/target/dist/mcpspec
fi
MCPSPEC=$(cd "$(dirname "$MCPSPEC")" && pwd)/$(basename "$MCPSPEC")
cores=$(nproc)

echo "installing the anchors into $work" >&2
extra=()
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 22 ]; then extra+=("$node_pin"); fi
npm install --prefix "$work/new" --no-audit --no-fund --loglevel=error "$official_new" "$everything" "${extra[@]}" >&2
npm install --prefix "$work/old" --no-audit --no-fund --loglevel=error "$official_old" "${extra[@]}" >&2
if [ ! -x "$work/venv/bin/mcp-fuzzer" ]; then
    python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install -q "$fuzzer"
fi
export PATH=$work/new/node_modules/.bin:$PATH

# `measure NAME CMD...`: runs CMD, keeps its wall seconds and peak RSS (KiB) in
# $work/NAME.time; its output in $work/NAME.log.
measure() {
    local name=$1
    shift
    /usr/bin/time -f '%e %M' -o "$work/$name.time" "$@" >"$work/$name.log" 2>&1 || true
}
# (GNU time writes "Command exited with non-zero status N" first when it did:
# the readers below take the file's last line.)
# The HTTP runs take a second or three each, and a shared machine's noise is of that
# order: they are repeated (ROUNDS, default 3) and their medians compared.
rounds=${ROUNDS:-3}

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port/mcp
PORT=$port NODE_OPTIONS="--require $repo/bench/loopback.cjs" \
    mcp-server-everything streamableHttp >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
    sleep 0.1
done

echo "== Streamable HTTP, server-everything on 127.0.0.1 =="
# Rounds of all four runs, interleaved so that a busy moment of the machine (or the
# server's first, cold run) falls on each of them alike; the lines below are each
# one's median over the rounds, with its range. The older CLI takes the URL alone;
# the newer one a frozen requirement set per run.
for round in $(seq "$rounds"); do
    PATH=$work/old/node_modules/.bin:$PATH measure "official-old-$round" conformance server --url "$url"
    measure "official-new-2025-$round" conformance server --url "$url" --requirements 2025-11-25
    measure "official-new-2026-$round" conformance server --url "$url" --requirements 2026-07-28
    rm -rf "$work/mcpspec-http-$round"
    measure "mcpspec-http-$round" "$MCPSPEC" server --url "$url" --report-dir "$work/mcpspec-http-$round" --no-progress
done
# The same run with a session per case: its verdicts must be the shared runs'.
rm -rf "$work/mcpspec-http-isolated"
measure mcpspec-http-isolated "$MCPSPEC" server --url "$url" --isolate \
    --report-dir "$work/mcpspec-http-isolated" --no-progress

python3 - "$work" "$rounds" <<'EOF'
import json, re, statistics, sys
work, rounds = sys.argv[1], range(1, int(sys.argv[2]) + 1)
def t(name):
    wall, rss = open(f"{work}/{name}.time").read().strip().splitlines()[-1].split()[:2]
    return float(wall), int(rss) / 1024
def med(xs):
    return f"{statistics.median(xs):.2f} ({min(xs):.2f}-{max(xs):.2f})" if len(xs) > 1 else f"{xs[0]:.2f}"
def results(name):
    return json.load(open(f"{work}/{name}/report.json"))["results"]
runs = [results(f"mcpspec-http-{i}") for i in rounds]
cases = runs[0]
judged = [r for r in cases if r["outcome"] != "not_applicable"]
walls = [t(f"mcpspec-http-{i}")[0] for i in rounds]
rsss = [t(f"mcpspec-http-{i}")[1] for i in rounds]
crit = [max(r["duration_ms"] for r in run) / 1000 for run in runs]
sums = [sum(r["duration_ms"] for r in run) / 1000 for run in runs]
mw, mr = statistics.median(walls), statistics.median(rsss)
print(f"mcpspec, median of {len(walls)} runs (range): {len(cases)} cases ({len(judged)} judged) in {med(walls)} s wall,"
      f" {len(cases)/mw:.1f} cases/s, peak RSS {med(rsss)} MB")
print(f"  critical path (longest case) {med(crit)} s: wall / critical path = {med([w / c for w, c in zip(walls, crit)])}")
print(f"  sum of case durations {med(sums)} s: parallelism achieved = {med([s / w for s, w in zip(sums, walls)])}")
def verdicts(run):
    return {r["id"]: (r["outcome"], r.get("blame")) for r in run}
isolated = verdicts(results("mcpspec-http-isolated"))
differ = sorted({i for run in runs for i in verdicts(run).keys() | isolated.keys()
                 if verdicts(run).get(i) != isolated.get(i)})
iw, _ = t("mcpspec-http-isolated")
print(f"  --isolate (a session per case): {len(isolated)} cases in {iw:.2f} s; verdicts equal to every shared run's: "
      + ("yes" if not differ else f"NO, {len(differ)} differ: {', '.join(differ[:5])}"))
def scenarios(name):
    # The official CLI prints one line per scenario it ran: "✓ name: N passed, M failed".
    return sum(1 for line in open(f"{work}/{name}.log", encoding="utf-8")
               if re.match(r"^\S+ [\w.-]+: \d+ passed, \d+ failed", line))
old = [t(f"official-old-{i}") for i in rounds]
new = [(t(f"official-new-2025-{i}"), t(f"official-new-2026-{i}")) for i in rounds]
anchors = [
    ("official 0.1.16", scenarios("official-old-1"), [w for w, _ in old], [r for _, r in old]),
    ("official 0.2.0-alpha.12 (both sets)",
     scenarios("official-new-2025-1") + scenarios("official-new-2026-1"),
     [a[0] + b[0] for a, b in new], [max(a[1], b[1]) for a, b in new]),
]
ours = len(cases) / mw
for name, n, ws, rs in anchors:
    w, r = statistics.median(ws), statistics.median(rs)
    print(f"{name}: {n} scenarios in {med(ws)} s wall = {n/w:.1f} cases/s, peak RSS {med(rs)} MB"
          f" -> mcpspec/official (medians): cases/s x{ours/(n/w):.1f} (judged only x{len(judged)/mw/(n/w):.1f}),"
          f" wall x{mw/w:.1f}, RSS x{mr/r:.2f}")
EOF

echo "== stdio, the built-in reference server =="
rm -rf "$work/mcpspec-reference"
measure mcpspec-reference "$MCPSPEC" server --report-dir "$work/mcpspec-reference" --no-progress
python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
wall, rss = open(f"{work}/mcpspec-reference.time").read().strip().splitlines()[-1].split()[:2]
wall = float(wall)
durations = [r["duration_ms"] / 1000 for r in json.load(open(f"{work}/mcpspec-reference/report.json"))["results"]]
print(f"mcpspec (reference): {len(durations)} cases in {wall:.2f} s wall, peak RSS {int(rss)/1024:.0f} MB;"
      f" critical path (longest case) {max(durations):.2f} s: wall / critical path = {wall/max(durations):.2f}")
EOF

if [ -z "${SKIP_STDIO:-}" ]; then
    echo "== stdio, server-everything =="
    # One start-up's CPU: the server reads EOF at once and exits. Nine of them, the
    # median taken (one sample moved the bound by a fifth between two runs, and
    # medians of five by a third between rounds).
    rm -f "$work/startup.time"
    for _ in 1 2 3 4 5 6 7 8 9; do
        /usr/bin/time -f '%U %S' -a -o "$work/startup.time" mcp-server-everything stdio </dev/null >/dev/null 2>&1 || true
    done
    rm -rf "$work/mcpspec-stdio" "$work/mcpspec-stdio-isolated"
    # The target through a script that counts its start-ups (one `sh` exec each,
    # about a millisecond beside the server's own start-up).
    counted=$work/counted-everything.sh
    printf '#!/bin/sh\necho >> "$STARTS"\nexec mcp-server-everything "$@"\n' >"$counted"
    chmod +x "$counted"
    rm -f "$work/starts-shared" "$work/starts-isolated"
    STARTS=$work/starts-shared measure mcpspec-stdio "$MCPSPEC" server --report-dir "$work/mcpspec-stdio" \
        --no-progress -- "$counted" stdio
    # The same run with one process per case: its verdicts must be the shared run's.
    STARTS=$work/starts-isolated measure mcpspec-stdio-isolated "$MCPSPEC" server --isolate \
        --report-dir "$work/mcpspec-stdio-isolated" --no-progress -- "$counted" stdio
    python3 - "$work" "$cores" <<'EOF'
import json, re, statistics, sys
work, cores = sys.argv[1], int(sys.argv[2])
# GNU time appends "Command exited with non-zero status N" lines too: the samples
# are the lines of two numbers.
samples = [sum(map(float, line.split())) for line in open(f"{work}/startup.time")
           if re.fullmatch(r"[\d.]+ [\d.]+", line.strip())]
startup = statistics.median(samples)
wall = float(open(f"{work}/mcpspec-stdio.time").read().strip().splitlines()[-1].split()[0])
results = json.load(open(f"{work}/mcpspec-stdio/report.json"))["results"]
n = len(results)
durations = [r["duration_ms"] / 1000 for r in results]
def starts(name):
    try:
        return sum(1 for _ in open(f"{work}/starts-{name}"))
    except FileNotFoundError:
        return 0
shared_starts, isolated_starts = starts("shared"), starts("isolated")
# The one-process-per-case bound counts the start-ups such a run makes (the
# --isolate run's, counted), not the cases: a case that a `requires` gate makes
# not applicable is judged without a process of its own.
per_case = isolated_starts or n
bound = per_case * startup / cores
print(f"mcpspec stdio: {n} cases in {wall:.1f} s; start-up bound {per_case} start-ups"
      f" (one process per case, --isolate) x {startup:.2f} s CPU"
      f" (median of {len(samples)}, {min(samples):.2f}-{max(samples):.2f}) / {cores} cores = {bound:.1f} s:"
      f" wall / bound = {wall/bound:.2f}")
print(f"  critical path (longest case) {max(durations):.2f} s: wall / critical path = {wall/max(durations):.2f}; sum of case durations {sum(durations):.1f} s")
print(f"  target start-ups: {shared_starts} (--isolate: {isolated_starts}); {shared_starts} x {startup:.2f} s CPU"
      f" / {cores} cores = {shared_starts * startup / cores:.1f} s")
def verdicts(name):
    return {r["id"]: (r["outcome"], r.get("blame")) for r in json.load(open(f"{work}/{name}/report.json"))["results"]}
shared, isolated = verdicts("mcpspec-stdio"), verdicts("mcpspec-stdio-isolated")
differ = sorted(i for i in shared.keys() | isolated.keys() if shared.get(i) != isolated.get(i))
iwall = float(open(f"{work}/mcpspec-stdio-isolated.time").read().strip().splitlines()[-1].split()[0])
print(f"  --isolate: {len(isolated)} cases in {iwall:.1f} s (shared / isolated wall = {wall/iwall:.2f});"
      " verdicts equal to the shared run's: "
      + ("yes" if not differ else f"NO, {len(differ)} differ: {', '.join(differ[:5])}"))
EOF
fi

echo "== fuzzing over stdio, server-everything =="
measure mcpspec-fuzz "$MCPSPEC" fuzz server --duration "${fuzz_seconds}s" --json "$work/fuzz.json" \
    --report-dir "$work/fuzz-out" -- mcp-server-everything stdio
rm -rf "$work/mcp-fuzzer"
measure mcp-fuzzer "$work/venv/bin/mcp-fuzzer" --mode tools --runs 3 --protocol stdio \
    --endpoint "mcp-server-everything stdio" --no-safety --output-dir "$work/mcp-fuzzer" --log-level ERROR
python3 - "$work" "$fuzz_seconds" <<'EOF'
import json, sys
work = sys.argv[1]
ours = json.load(open(f"{work}/fuzz.json"))
summary = json.load(open(f"{work}/mcp-fuzzer/run_summary.json"))
runs = sum(t.get("total_runs", 0) for t in summary.get("tools", {}).get("by_name", {}).values())
runs += summary.get("protocols", {}).get("total_runs", 0)
wall = float(open(f"{work}/mcp-fuzzer.time").read().strip().splitlines()[-1].split()[0])
theirs = runs / wall if wall else 0
apart = ours['minimize_seconds'] + ours['attribute_seconds'] + ours['drain_seconds']
print(f"mcpspec fuzz: {ours['execs']} execs in {ours['seconds']:.1f} s = {ours['execs_per_sec']:.0f} execs/s "
      f"(+{ours['minimize_seconds']:.1f} s minimising, +{ours['attribute_seconds']:.1f} s replaying windows, "
      f"+{ours['drain_seconds']:.1f} s waiting for owed answers at the end, {len(ours['findings'])} findings); "
      f"budget {sys.argv[2]} s: wall - those = {ours['seconds'] - apart:.1f} s")
print(f"mcp-fuzzer 0.7.0: {runs} runs in {wall:.1f} s = {theirs:.1f} runs/s -> ratio x{ours['execs_per_sec']/theirs:.0f}" if theirs else "mcp-fuzzer: no runs counted")
EOF

echo "== wire codec =="
cargo bench -q -p mcpspec-wire --bench codec 2>/dev/null | grep '^wire codec'
