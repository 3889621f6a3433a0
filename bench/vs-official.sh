#!/usr/bin/env bash
# Side by side with the official conformance suite, on a real server.
#
# Installs (into a scratch directory, from the npm registry) the official suite
# @modelcontextprotocol/conformance, @modelcontextprotocol/server-everything and,
# when the machine's Node is older than 22, Node 22 itself; starts the server
# over Streamable HTTP on 127.0.0.1; runs the official suite for each frozen
# requirement set and mcpspec for the same revisions against it; then prints,
# for every official check that failed, whether mcpspec reports the same rule
# (bench/vs_official.py), and both tools' wall times.
#
#   bench/vs-official.sh            # builds mcpspec (release) if MCPSPEC is unset
#   MCPSPEC=target/debug/mcpspec bench/vs-official.sh
#
# Exit status: that of vs_official.py (0: every official failure matched or
# explained; 1: some unmatched; 2: bad input), or the failing step's.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

# The pins: bumping one is a reviewed change (the parity map names the official version).
official=@modelcontextprotocol/conformance@0.2.0-alpha.12
everything=@modelcontextprotocol/server-everything@2026.8.31
node_pin=node@22
revisions=(2025-11-25 2026-07-28)

work=${WORK:-$repo/target/vs-official}
mkdir -p "$work"
work=$(cd "$work" && pwd)

if [ -z "${MCPSPEC:-}" ]; then
    cargo build --release --locked -q -p mcpspec
    MCPSPEC=$repo/target/release/mcpspec
fi
MCPSPEC=$(cd "$(dirname "$MCPSPEC")" && pwd)/$(basename "$MCPSPEC")

packages=("$official" "$everything")
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$major" -lt 22 ]; then
    packages+=("$node_pin")
fi
echo "installing ${packages[*]} into $work/node" >&2
npm install --prefix "$work/node" --no-audit --no-fund --loglevel=error "${packages[@]}" >&2
export PATH=$work/node/node_modules/.bin:$PATH

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port/mcp
PORT=$port NODE_OPTIONS="--require $repo/bench/loopback.cjs" \
    mcp-server-everything streamableHttp >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
        break
    fi
    if ! kill -0 $server 2>/dev/null; then
        echo "server-everything exited:" >&2
        cat "$work/server.log" >&2
        exit 1
    fi
    sleep 0.1
done

now() { python3 -c 'import time; print(time.monotonic())'; }
runs=()
for rev in "${revisions[@]}"; do
    rm -rf "$work/official-$rev"
    t0=$(now)
    # The official runner exits 1 when any check fails; its results are what we read.
    conformance server --url "$url" --requirements "$rev" -o "$work/official-$rev" \
        >"$work/official-$rev.log" 2>&1 || true
    t1=$(now)
    printf 'official %s (%s): %.2f s wall, %s\n' "$official" "$rev" "$(echo "$t1 - $t0" | bc)" \
        "$(grep -E '^Total:' "$work/official-$rev.log" || echo 'no total printed')"
    runs+=("$rev=$work/official-$rev")
done

version_args=()
for rev in "${revisions[@]}"; do version_args+=(--spec-version "$rev"); done
t0=$(now)
"$MCPSPEC" server --url "$url" "${version_args[@]}" --json "$work/mcpspec.json" \
    --no-progress --status-level none --final-status-level none >"$work/mcpspec.log" 2>&1 || true
t1=$(now)
printf 'mcpspec (%s): %.2f s wall, %s\n' "${revisions[*]}" "$(echo "$t1 - $t0" | bc)" \
    "$(tail -n 1 "$work/mcpspec.log")"

"$MCPSPEC" coverage --against official --json >"$work/parity.json"
python3 "$repo/bench/vs_official.py" --parity "$work/parity.json" --mcpspec "$work/mcpspec.json" "${runs[@]}"
