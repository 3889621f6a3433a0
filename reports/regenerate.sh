#!/usr/bin/env bash
# Regenerates reports/ (the conformance matrix of real MCP implementations): see the
# docstring of reports/regenerate.py for what it does, its options and its environment.
# Needs python3 with PyYAML (installed into a scratch venv when missing), npm, cargo and git.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=python3
if ! python3 -c 'import yaml' 2>/dev/null; then
    tools=${WORK:-$here/../target/reports-work}/venv/tools
    [ -x "$tools/bin/python" ] || python3 -m venv "$tools"
    "$tools/bin/pip" install -q --no-cache-dir pyyaml==6.0.2 >&2
    python=$tools/bin/python
fi
exec "$python" "$here/regenerate.py" "$@"
