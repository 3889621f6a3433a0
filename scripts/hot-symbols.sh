#!/usr/bin/env bash
# Regenerates harness/cli/hot-symbols.txt: the functions of the shipped binary that the
# usual runs execute, which harness/cli/build.rs has the linker lay out first (issue #18:
# the kernel maps code in 64 KiB windows around each page a run touches, so code spread
# over the whole binary was nearly all resident; laid out together, mostly its pages are:
# bench/speed.sh's peak RSS lines measure the result).
#
#   scripts/hot-symbols.sh
#
# Run it after a toolchain, profile or dependency change, and after code changes that
# rename hot generic instances (boxing a future renamed the runner's task instances):
# the names carry hashes of those, and names the binary no longer has are
# skipped by the linker. A stale list costs memory, never a build or a behaviour.
#
# Builds the shipped mcpspec (`--profile dist`) and runs it under valgrind's callgrind:
# `list`, one case, the full suite against the built-in reference over Streamable HTTP
# with --report-dir (on 127.0.0.1, stopped afterwards), conformant and with faults,
# and over stdio. Needs valgrind and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

cargo build --profile dist --locked -q -p mcpspec
bin=$repo/target/dist/mcpspec
work=$(mktemp -d)
ref=
cleanup() {
    if [ -n "$ref" ]; then kill "$ref" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# `profile NAME ARGS...`: callgrind's record of `mcpspec ARGS...` (its verdicts do not
# matter here: only which functions ran).
profile() {
    local name=$1
    shift
    echo "profiling: mcpspec $*" >&2
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" \
        "$bin" "$@" >/dev/null 2>&1 || true
}

profile list list
profile one server --filter server/lifecycle/ping/ --spec-version 2025-06-18 --no-progress

# `reference_http [--fault F]...`: starts the reference over Streamable HTTP on
# 127.0.0.1 (stopped by `cleanup` or the next call); its endpoint in $url.
reference_http() {
    if [ -n "$ref" ]; then kill "$ref" 2>/dev/null || true; fi
    timeout 900 "$bin" reference server --http 127.0.0.1:0 "$@" >"$work/ref.out" 2>/dev/null &
    ref=$!
    url=
    for _ in $(seq 100); do
        url=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$work/ref.out" | head -1)
        [ -n "$url" ] && break
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "error: the reference server did not start" >&2
        exit 1
    fi
}

reference_http
profile http server --url "$url/mcp" --report-dir "$work/report" --no-progress
# A target that breaks rules runs the code that reports findings (Expected/Actual,
# diffs, failing windows), which a conformant one never reaches: faults of the
# kinds real servers show (error codes, schema breaks, cancellation, resumption).
reference_http --fault invalid-params-code --fault title-not-string \
    --fault progress-after-cancel --fault ignore-cancellation \
    --fault duplicate-tool-name --fault http-resume-cross-replay
profile faulty server --url "$url/mcp" --report-dir "$work/faulty" --no-progress
kill "$ref" 2>/dev/null || true
ref=
profile stdio server --no-progress

# The functions each record shows running in the binary, first seen first (start-up,
# then what each run adds), each once: callgrind names them as the symbol table does.
python3 - "$bin" "$work"/{list,one,http,faulty,stdio}.out >harness/cli/hot-symbols.txt <<'EOF'
import re
import sys

binary, records = sys.argv[1], sys.argv[2:]
seen, names = set(), []
for path in records:
    objects, functions, current = {}, {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, key, name = m.groups()
        table = objects if kind.endswith("ob") else functions
        if name is not None:
            table[key] = name
        if kind == "ob":
            current = objects.get(key)
        elif kind == "fn" and current == binary:
            fn = re.sub(r"'\d+$", "", functions.get(key, ""))
            if fn and fn[0] not in "0(" and fn not in seen:
                seen.add(fn)
                names.append(fn)
print("\n".join(names))
EOF
echo "harness/cli/hot-symbols.txt: $(wc -l <harness/cli/hot-symbols.txt) functions" >&2
