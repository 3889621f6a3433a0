#!/usr/bin/env bash
# The script of the composite action (action.yml at the repository root):
# runs `mcpspec server` or `mcpspec client` with the user's arguments, writes
# a report directory, appends its summary.md to the step summary and sets the
# step's outputs. harness/cli/tests/action.rs runs it locally with a fake
# GITHUB_STEP_SUMMARY and GITHUB_OUTPUT.
#
# Inputs (environment, as the action passes them):
#   INPUT_ROLE        server (default) or client
#   INPUT_ARGS        mcpspec's arguments, shell-quoted as on a command line
#                     (e.g. `--spec-version 2025-11-25 -- node dist/server.js`)
#   INPUT_REPORT_DIR  where the reports go (default: mcpspec-report)
#   MCPSPEC           the mcpspec binary (default: mcpspec on PATH)
# Outputs (GITHUB_OUTPUT): exit-code, report-dir, junit, sarif, summary, badge.
# Exit: mcpspec's own code, so the step fails on failures (1), on a usage or
# harness error (2) and when the target could not be run (3).
set -uo pipefail

role="${INPUT_ROLE:-server}"
case "$role" in
    server | client) ;;
    *)
        echo "::error::input role must be server or client, not '$role'"
        exit 2
        ;;
esac
dir="${INPUT_REPORT_DIR:-mcpspec-report}"
bin="${MCPSPEC:-mcpspec}"

# The user's arguments, with their quoting (they come from the workflow file).
eval "set -- ${INPUT_ARGS:-}"

"$bin" "$role" --report-dir "$dir" "$@"
code=$?

summary="$dir/summary.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$summary" ]; then
    cat "$summary" >>"$GITHUB_STEP_SUMMARY"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "exit-code=$code"
        echo "report-dir=$dir"
        echo "junit=$dir/junit.xml"
        echo "sarif=$dir/sarif.json"
        echo "summary=$summary"
        echo "badge=$dir/badge.json"
    } >>"$GITHUB_OUTPUT"
fi
case "$code" in
    0) ;;
    1) echo "::error::mcpspec: conformance failures (exit 1); see the step summary" ;;
    3) echo "::error::mcpspec: the target could not be run or reached (exit 3)" ;;
    *) echo "::error::mcpspec exited $code" ;;
esac
exit "$code"
