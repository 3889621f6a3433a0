#!/usr/bin/env python3
"""Side by side with the official conformance suite: match its failures.

Reads what `conformance server --requirements REV -o DIR` wrote (one
`checks.json` per official scenario), the `report.json` of an mcpspec run
against the same server, and the parity map (`mcpspec coverage --against
official --json`). For every official check that failed or warned it prints
one line:

  matched    an mcpspec case the parity map names for that official scenario
             failed or warned at that revision (the case and its finding);
  explained  mcpspec judged nothing there, for a reason it states: the target
             does not offer the revision, or the cases are not applicable; or
             the official check needs a fixture name the target does not list
             (mcpspec's fixture case is not applicable) while mcpspec judged
             the specification's rule on the target's own items;
  UNMATCHED  the official suite failed the server where mcpspec passed it,
             or the scenario is not in the parity map.

Exit status: 0 when nothing is unmatched, 1 otherwise, 2 on bad input.
Standard library only.

usage: vs_official.py --parity PARITY.json --mcpspec REPORT.json REV=DIR...
"""

import argparse
import glob
import json
import os
import re
import sys

SCENARIO_DIR = re.compile(r"^server-(?P<name>.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$")
BAD = ("FAILURE", "WARNING")
# mcpspec's fixture profile: the official fixture server's named contract.
FIXTURE = "server/fixture/"


def official_failures(rev, out_dir):
    """(scenario, check id, status, message) for each check that did not pass."""
    found = []
    paths = sorted(glob.glob(os.path.join(out_dir, "*", "checks.json")))
    if not paths:
        sys.exit(f"vs_official: no */checks.json under {out_dir} (the official run for {rev} wrote nothing)")
    for path in paths:
        m = SCENARIO_DIR.match(os.path.basename(os.path.dirname(path)))
        if not m:
            sys.exit(f"vs_official: {path}: cannot tell the scenario from the directory name")
        with open(path, encoding="utf-8") as f:
            checks = json.load(f)
        for check in checks:
            if check.get("status") in BAD:
                found.append((m.group("name"), check["id"], check["status"],
                              (check.get("errorMessage") or "").strip()))
    return found


def covers(mapped_id, scenario):
    """A parity entry names a scenario id, or a directory of them (trailing '/')."""
    return scenario == mapped_id or (mapped_id.endswith("/") and scenario.startswith(mapped_id))


def not_offered(results, rev):
    """mcpspec's reason when no case at `rev` was judged because the target lacks it."""
    at_rev = [r for r in results if r["version"] == rev]
    if at_rev and all(r["outcome"] == "not_applicable" for r in at_rev):
        reasons = {r["message"] for r in at_rev if "does not offer" in r["message"]}
        if reasons:
            return sorted(reasons)[0]
    return None


def judge(entry, rev, results):
    """(verdict, detail) for one failing official check of `entry`'s scenario."""
    if entry is None:
        return "UNMATCHED", "the official scenario is not in the parity map"
    cases = [r for r in results
             if r["version"] == rev and any(covers(m, r["scenario"]) for m in entry["mcpspec"])]
    flagged = [r for r in cases if r["outcome"] in ("fail", "warn", "blocked")]
    if flagged:
        shown = []
        for r in flagged[:3]:
            reqs = sorted({f["requirement"] for f in r.get("findings", [])})
            shown.append(f"{r['id']} [{r['outcome']}: {', '.join(reqs) or r['message'][:80]}]")
        more = f" and {len(flagged) - 3} more" if len(flagged) > 3 else ""
        return "matched", "; ".join(shown) + more
    reason = not_offered(results, rev)
    if reason:
        return "explained", f"mcpspec: {reason}"
    if cases and all(r["outcome"] == "not_applicable" for r in cases):
        reasons = sorted({r["message"] for r in cases})
        return "explained", "mcpspec: not applicable: " + " | ".join(reasons)[:300]
    absent = [r for r in cases
              if r["scenario"].startswith(FIXTURE) and r["outcome"] == "not_applicable"]
    if absent:
        # The official check needs a named fixture the target does not list
        # (a contract of the official suite, not of the specification); what
        # the specification requires there, mcpspec judged on the target's own
        # tools, prompts and resources.
        judged = ", ".join(f"{r['id']} [{r['outcome']}]"
                           for r in cases if not r["scenario"].startswith(FIXTURE))
        return "explained", (f"the target lacks the official fixture ({absent[0]['message'][:120]}); "
                             f"the spec rules judged on its own items: {judged or 'none'}")
    if not cases:
        return "UNMATCHED", (f"parity status {entry['status']}: no mcpspec case at {rev}"
                             + (f" ({entry['note']})" if entry.get("note") else ""))
    passed = ", ".join(f"{r['id']} [{r['outcome']}]" for r in cases[:4])
    return "UNMATCHED", f"parity status {entry['status']}; mcpspec passed: {passed}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parity", required=True, help="mcpspec coverage --against official --json")
    ap.add_argument("--mcpspec", required=True, help="report.json of the mcpspec run")
    ap.add_argument("runs", nargs="+", metavar="REV=DIR", help="an official -o directory per revision")
    args = ap.parse_args()

    with open(args.parity, encoding="utf-8") as f:
        parity = json.load(f)
    entries = {e["official"]: e for e in parity["entries"] if e["role"] == "server"}
    with open(args.mcpspec, encoding="utf-8") as f:
        results = json.load(f)["results"]

    counts = {"matched": 0, "explained": 0, "UNMATCHED": 0}
    for run in args.runs:
        rev, sep, out_dir = run.partition("=")
        if not sep:
            ap.error(f"{run!r}: expected REV=DIR")
        failures = official_failures(rev, out_dir)
        print(f"\n── {rev}: {len(failures)} official checks failed or warned")
        for scenario, check, status, message in failures:
            verdict, detail = judge(entries.get(scenario), rev, results)
            counts[verdict] += 1
            print(f"{verdict:<10} {scenario} / {check} ({status.lower()}): {message[:140]}")
            print(f"{'':<10} {detail}")
    print(f"\n{counts['matched']} matched, {counts['explained']} explained, "
          f"{counts['UNMATCHED']} unmatched")
    return 1 if counts["UNMATCHED"] else 0


if __name__ == "__main__":
    sys.exit(main())
