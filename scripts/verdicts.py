#!/usr/bin/env python3
"""Verdict digests: proof that a refactor changed no verdict of `mcpspec`.

`digest` runs one `mcpspec` binary against its own reference implementations,
the way the self-validation tests do (harness/cli/tests/self_validation.rs and
client_validation.rs), and writes one sorted text line per case:

    <run-tag> <case-id> <outcome> <requirement ids of its findings, sorted, or ->

`compare` diffs two digests (say, of the binary before and after a refactor)
run by run, and exits 1 when any verdict differs.

    bin ──▶ plan(): the runs ──▶ execute(): one `mcpspec server|client --json`
        each, ≤ --jobs at a time ──▶ run_lines(): the digest ──▶ compare()

The runs (tags name role, transport and what the reference does):

    server.{stdio,http,sse}.clean        the clean reference server
    server.<transport>.fault=<name>      every `reference server --list-faults`
                                         fault a scenario run can see, over stdio
                                         when it applies there, else over its own
                                         transport; SHOULD faults with --strict
    client.{stdio,http,sse}.clean-full   the reference client at the four
    client.{stdio,http,sse}.clean-bare   handshake versions, declaring every
    client.{stdio,http}.clean-2026       client capability or none; and at 2026-07-28
    client.<transport>.fault=<name>      every `reference client --list-faults`
    client.<transport>.fault=<name>@2026 fault, at the handshake versions and at 2026

(The clean client runs over legacy SSE go beyond client_validation.rs, which
tests the client side over stdio and Streamable HTTP only.)

Each run also has a line `<tag> #run exit=<code> base=<tag or ->`. To keep the
file small, the versions of a scenario with the same verdict share one line
(`<scenario>@<v1>,<v2> …`), and a fault run lists only the cases whose verdict
differs from its clean run (`base`), with `absent -` for a case of the clean run
it did not have. `compare` expands both digests back to every case before
diffing, so a verdict that changes shows as that case's own line.

Some verdicts depend on timing (does a faulty message arrive before a short
case ends?). scripts/verdicts-unstable.txt lists them (`compare --ignore`):
`<tag glob> <case glob> <requirement id>,…: reason`, the findings that may come
and go in those cases, and the outcome with them. Such differences are printed
apart, with the reason, and do not fail the comparison; any other difference,
an exit code, or a case that one side lacks always counts.

Python 3.11 standard library only.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
STATELESS = "2026-07-28"
RUN_LINE = "#run"
HEADER = """\
# mcpspec verdict digest (scripts/verdicts.py digest): one line per case,
#   <run-tag> <case-id> <outcome> <finding requirement ids, sorted, or ->
# and one `<run-tag> #run exit=<code> base=<tag>` per run. Versions with the same
# verdict share a line (<scenario>@<v1>,<v2>); a run with a base lists only the
# cases whose verdict differs from the base run's (`absent` when it lacks one).
# Compare two digests with `scripts/verdicts.py compare A B`.
"""


@dataclass
class Run:
    """One `mcpspec server` or `client` run and how to start it."""

    tag: str
    role: str  # "server" or "client"
    transport: str  # "stdio", "http" or "sse"
    base: str | None = None  # the clean run whose cases it is listed against
    options: list[str] = field(default_factory=list)  # before the target
    faults: list[str] = field(default_factory=list)  # of the reference
    versions: list[str] = field(default_factory=list)  # client runs only
    client_extra: list[str] = field(default_factory=list)  # reference client options


@dataclass
class Outcome:
    """What a run came to: its exit (a code, or "timeout") and its report."""

    exit: str
    results: list[dict] | None  # the report's `results`; None without a report


# ---------------------------------------------------------------- processes


class Processes:
    """Every child started, each in its own process group, so that a run that
    is stopped takes the reference servers and clients it started with it.

    A group is signalled only while its leader is unreaped (so its id cannot
    have been reused), and only `stop` reaps, under the lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live: set[subprocess.Popen] = set()
        self.stopping = False

    def spawn(self, argv: list[str], stdout, stderr) -> subprocess.Popen:
        with self.lock:
            if self.stopping:
                raise KeyboardInterrupt
            p = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,
            )
            self.live.add(p)
            return p

    @staticmethod
    def exited(p: subprocess.Popen) -> bool:
        """Whether the leader has exited, without reaping it."""
        if p.returncode is not None:
            return True
        try:
            flags = os.WEXITED | os.WNOHANG | os.WNOWAIT
            return os.waitid(os.P_PID, p.pid, flags) is not None
        except ChildProcessError:
            return True

    def wait(self, p: subprocess.Popen, limit: float) -> int | None:
        """Its exit code, or None when `limit` seconds passed; stopped either way."""
        deadline = time.monotonic() + limit
        while not self.exited(p) and time.monotonic() < deadline:
            time.sleep(0.1)
        finished = self.exited(p)
        self.stop(p)
        return p.returncode if finished else None

    def signal_group(self, p: subprocess.Popen, sig: int) -> None:
        with self.lock:
            if p.returncode is None:
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass

    def stop(self, p: subprocess.Popen) -> None:
        """SIGTERM to a live group (mcpspec then ends its cases and their
        targets), SIGKILL to what is left after five seconds; then reap."""
        if not self.exited(p):
            self.signal_group(p, signal.SIGTERM)
            deadline = time.monotonic() + 5
            while not self.exited(p) and time.monotonic() < deadline:
                time.sleep(0.1)
        self.signal_group(p, signal.SIGKILL)
        with self.lock:
            if p.returncode is None:
                p.wait()
            self.live.discard(p)

    def stop_all(self) -> None:
        with self.lock:
            self.stopping = True
            live = list(self.live)
        for p in live:
            self.stop(p)


def capture(bin_: str, args: list[str]) -> str:
    """stdout of a short `bin args` (a listing), with a deadline."""
    done = subprocess.run(
        [bin_, *args], capture_output=True, text=True, timeout=120, check=False
    )
    if done.returncode != 0:
        sys.exit(f"verdicts: `{bin_} {' '.join(args)}` exited {done.returncode}")
    return done.stdout


# ---------------------------------------------------------------- the runs


def faults(bin_: str, role: str) -> list[tuple[str, bool, str]]:
    """(name, SHOULD-level, transport) of each fault a scenario run can see:
    `--list-faults` prints `name LEVEL transports description`; a fault only
    the fuzzer sees (`fuzz:…`) is left out, as self-validation does."""
    out = []
    for line in capture(bin_, ["reference", role, "--list-faults"]).splitlines():
        words = line.split()
        if len(words) < 3 or words[2].startswith("fuzz:"):
            continue
        transports = words[2].split(",")
        transport = "stdio" if "stdio" in transports else transports[0]
        out.append((words[0], words[1].lower() == "should", transport))
    return out


def plan(bin_: str) -> list[Run]:
    """The runs of self_validation.rs and client_validation.rs (and the clean
    reference client over legacy SSE), each tagged."""
    fault_opts = {False: ["--timeout", "2s"], True: ["--timeout", "2s", "--strict"]}
    handshake, modern = HANDSHAKE_VERSIONS, ["--spec-version", STATELESS]
    runs = [Run(f"server.{t}.clean", "server", t) for t in ("stdio", "http", "sse")]
    for name, should, t in faults(bin_, "server"):
        base = f"server.{t}.clean"
        runs.append(Run(f"server.{t}.fault={name}", "server", t, base, fault_opts[should], [name]))
    for t in ("stdio", "http", "sse"):
        runs.append(Run(f"client.{t}.clean-full", "client", t, versions=handshake))
        bare = ["--no-capabilities"]
        runs.append(Run(f"client.{t}.clean-bare", "client", t, None, [], [], handshake, bare))
        if t != "sse":
            stateless = [STATELESS]
            runs.append(Run(f"client.{t}.clean-2026", "client", t, None, [], [], stateless, modern))
    for name, should, t in faults(bin_, "client"):
        tag, opts = f"client.{t}.fault={name}", fault_opts[should]
        full, clean_2026 = f"client.{t}.clean-full", f"client.{t}.clean-2026"
        runs.append(Run(tag, "client", t, full, opts, [name], handshake))
        runs.append(Run(f"{tag}@2026", "client", t, clean_2026, opts, [name], [STATELESS], modern))
    return runs


def start_http_reference(
    bin_: str, procs: Processes, run_faults: list[str], scratch: Path
) -> tuple[subprocess.Popen, str]:
    """`reference server --http 127.0.0.1:0`: the process and its base URL,
    read from its first stdout line `listening on http://127.0.0.1:PORT …`."""
    argv = [bin_, "reference", "server", "--http", "127.0.0.1:0"]
    for f in run_faults:
        argv += ["--fault", f]
    out_path = scratch / "reference.stdout"
    with open(out_path, "wb") as out:
        p = procs.spawn(argv, out, subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not procs.exited(p):
        first = out_path.read_text(errors="replace").partition("\n")
        if first[1]:
            words = first[0].split()
            if words[:2] == ["listening", "on"] and len(words) > 2:
                base = words[2]
                if base.startswith("http://127.0.0.1:"):
                    return p, base
            break
        time.sleep(0.05)
    procs.stop(p)
    raise RuntimeError(f"`{' '.join(argv)}` did not announce its address")


def mcpspec_argv(bin_: str, run: Run, report: Path, base_url: str | None) -> list[str]:
    argv = [bin_, run.role, "--jobs", "8", "--json", str(report)]
    for v in run.versions:
        argv += ["--spec-version", v]
    argv += run.options
    if run.role == "server":
        if run.transport == "http":
            argv += ["--url", f"{base_url}/mcp"]
        elif run.transport == "sse":
            argv += ["--sse-url", f"{base_url}/sse"]
        elif run.faults:
            argv += ["--", bin_, "reference", "server"]
            for f in run.faults:
                argv += ["--fault", f]
        # The clean stdio run names no target: the built-in reference server.
        return argv
    argv += ["--", bin_, "reference", "client", *run.client_extra]
    for f in run.faults:
        argv += ["--fault", f]
    return argv + {
        "stdio": ["--", "{server}"],
        "http": ["--url", "{url}"],
        "sse": ["--sse-url", "{sse_url}"],
    }[run.transport]


def execute(
    bin_: str, run: Run, procs: Processes, limit: float, root: Path, keep: Path | None
) -> Outcome:
    scratch = Path(tempfile.mkdtemp(prefix="run-", dir=root))
    report = scratch / "report.json"
    server = None
    try:
        base_url = None
        if run.role == "server" and run.transport != "stdio":
            try:
                server, base_url = start_http_reference(bin_, procs, run.faults, scratch)
            except RuntimeError as e:
                print(f"verdicts: {run.tag}: {e}", file=sys.stderr)
                return Outcome("no-reference-server", None)
        argv = mcpspec_argv(bin_, run, report, base_url)
        with open(scratch / "output", "wb") as out:
            p = procs.spawn(argv, out, subprocess.STDOUT)
        code = procs.wait(p, limit)
        exit_ = "timeout" if code is None else str(code)
        try:
            doc = json.loads(report.read_text())
        except (OSError, ValueError):
            tail = (scratch / "output").read_text(errors="replace")[-2000:]
            print(f"verdicts: {run.tag}: no report (exit {exit_})\n{tail}", file=sys.stderr)
            return Outcome(exit_, None)
        if keep is not None:
            shutil.copyfile(report, keep / f"{run.tag}.json")
        if not doc.get("complete", True):
            exit_ += ",incomplete"
        return Outcome(exit_, doc.get("results", []))
    finally:
        if server is not None:
            procs.stop(server)
        shutil.rmtree(scratch, ignore_errors=True)


# ---------------------------------------------------------------- digests


def case_lines(results: list[dict]) -> dict[str, str]:
    """case id → `<outcome> <requirement ids>` (each id once: a repeated
    finding of one requirement is one id)."""
    out = {}
    for r in results:
        ids = sorted({f.get("requirement", "") for f in r.get("findings", [])})
        out[r["id"]] = f"{r['outcome']} {','.join(ids) or '-'}"
    return out


def run_lines(runs: list[Run], outcomes: dict[str, Outcome]) -> list[str]:
    """The digest's lines: bases in full, other runs as their differences."""
    full = {
        tag: case_lines(o.results) for tag, o in outcomes.items() if o.results is not None
    }
    lines = []
    for run in runs:
        o = outcomes.get(run.tag)
        if o is None:
            continue
        cases = full.get(run.tag, {})
        base = full.get(run.base) if run.base else None
        if base is None or o.results is None:
            shown = cases
            base_tag = "-"
        else:
            shown = {c: v for c, v in cases.items() if base.get(c) != v}
            shown.update({c: "absent -" for c in base if c not in cases})
            base_tag = run.base
        lines.append(f"{run.tag} {RUN_LINE} exit={o.exit} base={base_tag}")
        lines += [f"{run.tag} {c} {v}" for c, v in fold(shown).items()]
    return sorted(lines, key=lambda l: l.split(" ", 2)[:2])


def fold(cases: dict[str, str]) -> dict[str, str]:
    """`scenario@v1,v2` → verdict: one line for the versions of a scenario
    whose verdicts are the same."""
    versions: dict[tuple[str, str], list[str]] = {}
    for case, verdict in cases.items():
        scenario, _, version = case.rpartition("@")
        versions.setdefault((scenario, verdict), []).append(version)
    return {f"{s}@{','.join(sorted(vs))}": v for (s, v), vs in versions.items()}


def unfold(case: str) -> list[str]:
    scenario, at, versions = case.rpartition("@")
    return [f"{scenario}{at}{v}" for v in versions.split(",")] if at else [case]


def read_digest(path: str) -> dict[str, dict[str, str]]:
    """tag → case id (or `#run`) → the rest of its line, bases expanded into
    the runs listed against them."""
    runs: dict[str, dict[str, str]] = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        words = line.split(" ", 2)
        if len(words) != 3:
            sys.exit(f"verdicts: {path}:{n}: not `<tag> <case> <verdict>`: {line!r}")
        for case in unfold(words[1]):
            runs.setdefault(words[0], {})[case] = words[2]
    expanded = {}
    for tag, cases in runs.items():
        # `exit=… base=…`: the base is how the run is written down, not a verdict.
        exit_, _, base = cases.get(RUN_LINE, "").partition(" base=")
        whole = {}
        if base not in ("", "-"):
            if base not in runs:
                sys.exit(f"verdicts: {path}: {tag} is listed against {base}, which is missing")
            whole = {c: v for c, v in runs[base].items() if c != RUN_LINE}
        whole.update(cases)
        whole[RUN_LINE] = exit_
        expanded[tag] = {c: v for c, v in whole.items() if v != "absent -"}
    return expanded


@dataclass
class Unstable:
    """A known timing-dependent verdict: in the cases matching both globs, the
    finding requirement ids `flaky` may come and go between two runs of one
    binary, and the outcome change with them; `reason` says why."""

    tag: str
    case: str
    flaky: frozenset[str]
    reason: str

    def matches(self, tag: str, case: str) -> bool:
        return fnmatch.fnmatchcase(tag, self.tag) and fnmatch.fnmatchcase(case, self.case)

    def excuses(self, tag: str, case: str, ours: str | None, theirs: str | None) -> bool:
        if case == RUN_LINE or ours is None or theirs is None:
            return False  # an exit code, or a case one side lacks, always counts
        if not self.matches(tag, case):
            return False
        (o1, ids1), (o2, ids2) = (v.split(" ") for v in (ours, theirs))
        f1, f2 = set(ids1.split(",")) - {"-"}, set(ids2.split(",")) - {"-"}
        if f1 - self.flaky != f2 - self.flaky:
            return False
        return o1 == o2 or bool((f1 | f2) & self.flaky)


def read_unstable(path: str) -> list[Unstable]:
    """`<tag glob> <case glob> <requirement id>,…: reason` lines; `#` comments."""
    out = []
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, colon, reason = line.partition(": ")
        words = pattern.split()
        if not colon or len(words) != 3 or not reason:
            sys.exit(f"verdicts: {path}:{n}: not `<tag glob> <case glob> <ids>: reason`")
        out.append(Unstable(words[0], words[1], frozenset(words[2].split(",")), reason.strip()))
    return out


def compare(a: str, b: str, ignore: str | None) -> int:
    left, right = read_digest(a), read_digest(b)
    rules = read_unstable(ignore) if ignore else []
    differing = 0
    excused: list[str] = []
    for tag in sorted(set(left) | set(right)):
        ours, theirs = left.get(tag, {}), right.get(tag, {})
        keys = sorted(set(ours) | set(theirs))
        real = []
        for k in (k for k in keys if ours.get(k) != theirs.get(k)):
            rule = next((r for r in rules if r.excuses(tag, k, ours.get(k), theirs.get(k))), None)
            if rule is None:
                real.append(k)
                continue
            excused.append(f"  {tag} {k}: {ours[k]} | {theirs[k]} ({rule.reason})")
        if not real:
            continue
        differing += len(real)
        print(f"== {tag}")
        sys.stdout.writelines(
            difflib.unified_diff(
                [f"{k} {ours[k]}\n" for k in real if k in ours],
                [f"{k} {theirs[k]}\n" for k in real if k in theirs],
                a,
                b,
                n=0,
            )
        )
    for r in rules:
        if not any(r.matches(t, c) for t, cases in left.items() for c in cases):
            print(f"note: {ignore}: `{r.tag} {r.case}` matches no case of {a}")
    if excused:
        print(f"known unstable, not counted ({len(excused)}):")
        print("\n".join(excused))
    if differing:
        print(f"{differing} verdict line(s) differ")
        return 1
    print(f"same verdicts: {sum(map(len, left.values()))} lines in {len(left)} runs")
    return 0


# ---------------------------------------------------------------- commands


def digest(
    bin_: str, out: str, jobs: int, limit: float, only: list[str], keep: str | None
) -> int:
    bin_ = str(Path(bin_).resolve())
    current = os.nice(0)
    if current < 10:
        os.nice(10 - current)  # the machine is shared; children inherit it
    keep_dir = Path(keep) if keep else None
    if keep_dir is not None:
        keep_dir.mkdir(parents=True, exist_ok=True)
    runs = plan(bin_)
    if only:
        runs = [r for r in runs if any(fnmatch.fnmatchcase(r.tag, g) for g in only)]
    procs = Processes()
    root = Path(tempfile.mkdtemp(prefix="mcpspec-verdicts-"))
    outcomes: dict[str, Outcome] = {}
    started = time.monotonic()

    def terminate(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, terminate)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(execute, bin_, r, procs, limit, root, keep_dir): r for r in runs}
        for n, f in enumerate(concurrent.futures.as_completed(futures), 1):
            run = futures[f]
            outcomes[run.tag] = f.result()
            print(
                f"[{n}/{len(runs)} {time.monotonic() - started:5.0f}s] {run.tag}: "
                f"exit {outcomes[run.tag].exit}",
                file=sys.stderr,
            )
    finally:
        procs.stop_all()  # nothing is left on success; on an interrupt, the runs in flight
        pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(root, ignore_errors=True)
    Path(out).write_text(HEADER + "".join(l + "\n" for l in run_lines(runs, outcomes)))
    missing = sorted(t for t, o in outcomes.items() if o.results is None)
    if missing:
        print(
            f"verdicts: {out} records {len(missing)} run(s) without a report (their output "
            f"is above; rerun if the cause was passing): {', '.join(missing)}",
            file=sys.stderr,
        )
        return 1
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("digest", help="run a binary against its reference; write the digest")
    d.add_argument("--bin", required=True, help="the mcpspec binary")
    d.add_argument("--out", required=True, help="the digest file to write")
    d.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    d.add_argument(
        "--run-timeout",
        type=float,
        default=600,
        help="seconds one mcpspec run may take before it is killed (default 600)",
    )
    d.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GLOB",
        help="only the runs whose tag matches (repeatable), e.g. 'server.*.clean'",
    )
    d.add_argument(
        "--reports",
        metavar="DIR",
        help="also keep each run's JSON report as DIR/<run-tag>.json (to look into a difference)",
    )
    c = sub.add_parser("compare", help="diff two digests; exit 1 when a verdict differs")
    c.add_argument("a", metavar="BEFORE", help="a digest, e.g. scripts/verdicts-baseline.txt")
    c.add_argument("b", metavar="AFTER", help="the digest to hold against it")
    c.add_argument(
        "--ignore",
        metavar="FILE",
        help="known timing-dependent verdicts (`<tag glob> <case glob> <requirement "
        "ids>: reason` lines), e.g. scripts/verdicts-unstable.txt",
    )
    args = parser.parse_args()
    if args.command == "digest":
        if args.jobs < 1:
            parser.error("--jobs must be at least 1")
        return digest(args.bin, args.out, args.jobs, args.run_timeout, args.only, args.reports)
    return compare(args.a, args.b, args.ignore)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("verdicts: interrupted; no digest written", file=sys.stderr)
        sys.exit(130)
