#!/usr/bin/env bash
# What `mcpspec proxy` costs (issue #17): the latency it adds to a ping's round
# trip (p50 / p99, proxied minus direct) over stdio and Streamable HTTP on
# 127.0.0.1, and the pings per second it relays over stdio, each against the
# built-in reference server. Timings live here, never in tests (these machines
# are shared and noisy).
#
#   bench/proxy.sh                                  # builds mcpspec (release) if MCPSPEC is unset
#   MCPSPEC=target/debug/mcpspec PINGS=500 FLOOD=20000 bench/proxy.sh
#
# Needs python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${MCPSPEC:-}" ]; then
    cargo build --release --locked -q -p mcpspec
    MCPSPEC=$PWD/target/release/mcpspec
fi
exec python3 bench/proxy_bench.py "$MCPSPEC" "${PINGS:-2000}" "${FLOOD:-50000}"
