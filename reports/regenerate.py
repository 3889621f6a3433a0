#!/usr/bin/env python3
"""Regenerates reports/: the conformance matrix of real MCP implementations.

Reads reports/implementations.yaml (the pinned implementations and how each one is
started), installs the pins into a scratch directory (npm, PyPI, and crates built with
cargo), runs
`mcpspec server --report-dir` against every server and `mcpspec client --report-dir`
against every client, over every transport each offers (mcpspec tests every protocol
version the target offers), keeps of each run a compact report.json (no transcripts, no
scratch paths) and its summary.md under reports/servers/<implementation>/<transport>/
(reports/clients/… for a client), merges them with `mcpspec report merge`
into reports/matrix.md and reports/matrix.html, and writes reports/README.md (what was
run, when, with which mcpspec commit, and the wall time).

  reports/regenerate.sh                          # everything
  reports/regenerate.sh --only server-memory     # one implementation (or impl/transport)
  reports/regenerate.sh --jobs 2 --parallel 1    # gentler on a loaded machine
  reports/regenerate.sh --check server-everything/stdio
      # reruns one target into the scratch directory (nothing under reports/ changes) and
      # prints `mcpspec diff` against the committed report; exit 1 on a verdict change
  reports/regenerate.sh --merge-only
      # runs nothing: tidies the committed report.json files, merges them into matrix.md
      # and matrix.html, rewrites README.md (after a change of mcpspec's merge or of this
      # script's README, or by hand-resolving a merge of two branches' reports)

Each regeneration run is recorded in reports/regenerations.json (when, which mcpspec commit,
which targets, its wall time); a run drops out once every target it ran has been rerun.
README.md lists the runs the committed reports come from, so a partial run (`--only`) does
not make it describe that run alone.

Environment: MCPSPEC (the binary; default: target/debug/mcpspec, built if missing),
WORK (the scratch directory; default: target/reports-work).
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
REPORTS = REPO / "reports"
SERVERS = REPORTS / "servers"
CLIENTS = REPORTS / "clients"
# implementations.yaml section → the directory of its committed reports.
KINDS = {"servers": SERVERS, "clients": CLIENTS}
WORK_TOKEN = "<work>"
HISTORY = REPORTS / "regenerations.json"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def install(cfg, work):
    """Installs the pinned packages; returns the environment to run the servers in."""
    env = dict(os.environ)
    node_dir = work / "node"
    npm = list(cfg["packages"]["npm"])
    major = 0
    try:
        out = subprocess.run(["node", "-p", "process.versions.node.split('.')[0]"],
                             capture_output=True, text=True, check=True)
        major = int(out.stdout.strip())
    except (OSError, subprocess.CalledProcessError, ValueError):
        pass
    if major < cfg["node"]["min_major"]:
        npm.append(cfg["node"]["package"])
    log(f"installing {' '.join(npm)} into {node_dir}")
    subprocess.run(["npm", "install", "--prefix", str(node_dir), "--no-audit", "--no-fund",
                    "--loglevel=error", *npm], check=True, stdout=sys.stderr)
    env["PATH"] = f"{node_dir / 'node_modules' / '.bin'}{os.pathsep}{env['PATH']}"
    copy_hosts(cfg, work)
    for name, pins in cfg["packages"]["pypi"].items():
        venv = work / "venv" / name
        if not (venv / "bin" / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        log(f"installing {' '.join(pins)} into {venv}")
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--no-cache-dir", *pins],
                       check=True, stdout=sys.stderr)
    for name, src in cfg["packages"].get("cargo", {}).items():
        crate = work / "cargo" / name
        shutil.copytree(REPO / src, crate, dirs_exist_ok=True)
        log(f"building {src} in {crate}")
        # Its own target directory: a CARGO_TARGET_DIR of the caller would mix it with theirs.
        subprocess.run(["cargo", "build", "--quiet"], cwd=crate, check=True, stdout=sys.stderr,
                       env={**env, "CARGO_TARGET_DIR": str(crate / "target")})
    return env


def copy_hosts(cfg, work):
    """Copies each client's `host` script into the npm prefix, where its imports resolve to
    the pinned packages (Node resolves a module from the importing file's directory)."""
    for impl in cfg.get("clients", {}).values():
        if impl.get("host"):
            shutil.copy(REPO / impl["host"], work / "node" / Path(impl["host"]).name)


def fixtures(work):
    """The files the servers are pointed at: a directory, a memory file, a git repository."""
    fx = work / "fixtures"
    shutil.rmtree(fx, ignore_errors=True)
    (fx / "fs-root" / "docs").mkdir(parents=True)
    (fx / "fs-root" / "hello.txt").write_text("hello from the mcpspec matrix\n")
    (fx / "fs-root" / "docs" / "notes.md").write_text("# Notes\n\nA fixture file.\n")
    (fx / "memory.jsonl").write_text("")
    repo = fx / "git-repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=mcpspec", "-c", "user.email=m@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    (repo / "README.md").write_text("fixture\n")
    subprocess.run([*git, "add", "README.md"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], check=True)


def expand(argv, work, venv, port=None):
    subs = {"{work}": str(work), "{repo}": str(REPO), "{venv}": str(venv),
            "{port}": str(port or "")}
    out = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        out.append(a)
    return out


def wait_for_port(port, proc, logfile, limit=30.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited ({proc.returncode}): {logfile.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server did not listen on 127.0.0.1:{port} within {limit}s")


def scrub(text, work):
    """What differs between machines and runs but is no verdict: the scratch directory, the
    checkout's path and the HTTP servers' ports."""
    text = text.replace(str(work), WORK_TOKEN).replace(str(REPO), "<repo>")
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", text)


def drop_unoffered(doc):
    """Drops the results of the versions the target does not offer (each is `not_applicable`
    with the same "does not offer" message, about half of all results): they are no verdict
    on the target, `probes` keeps which versions it offers and why not the others, and
    `summary` keeps the run's counts. The matrix shows such a case as not run (—). Without
    this, reports/ would exceed its 5 MB budget."""
    offered = {p["version"] for p in doc.get("probes", []) if p.get("supported")}
    doc["results"] = [r for r in doc.get("results", [])
                      if r["version"] in offered or r["outcome"] != "not_applicable"]


def tidy(doc):
    """The steps of the compaction that need only the compact report itself (so --merge-only
    can apply them to the committed files): no case names a transcript file; the key is
    left out, as mcpspec itself writes a case without one (schema: optional)."""
    for r in doc.get("results", []):
        r.pop("transcript", None)


def write_compact(doc, path):
    path.write_text(json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n")


def compact(src, dst, work):
    """Copies report.json (transcript paths and per-case durations dropped, the versions the
    target does not offer dropped, minified) and summary.md, scrubbed of paths and ports."""
    dst.mkdir(parents=True, exist_ok=True)
    for old in dst.iterdir():
        if old.is_file():
            old.unlink()
    text = scrub((src / "report.json").read_text(), work)
    doc = json.loads(text)
    drop_unoffered(doc)
    for r in doc.get("results", []):
        # No transcripts are kept; per-case durations would make every regeneration's diff
        # noise, so only the verdicts (and each run's total wall time) remain.
        r["duration_ms"] = 0
    tidy(doc)
    write_compact(doc, dst / "report.json")
    summary = scrub((src / "summary.md").read_text(), work)
    (dst / "summary.md").write_text(summary)


def run_client(mcpspec, name, transport, argv, impl, env, work, out_dir, jobs):
    """Runs `mcpspec client` against one client × transport; returns (exit code, wall s)."""
    venv = work / "venv" / impl.get("venv", "-")
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    cmd = [mcpspec, "client", "--report-dir", str(out_dir), "-j", str(jobs), "--no-progress",
           "--status-level", "none", "--final-status-level", "none", "--",
           *expand(argv, work, venv)]
    (work / "logs").mkdir(parents=True, exist_ok=True)
    log(f"{name}/{transport}: client {' '.join(cmd[cmd.index('--') + 1:])}")
    t0 = time.monotonic()
    with open(work / "logs" / f"client-{name}-{transport}.mcpspec.log", "w") as lf:
        code = subprocess.run(cmd, env=env, stdout=lf, stderr=subprocess.STDOUT).returncode
    return code, time.monotonic() - t0


def run_target(mcpspec, name, transport, spec, impl, env, work, out_dir, jobs):
    """Runs mcpspec against one implementation × transport; returns (exit code, wall s)."""
    venv = work / "venv" / impl.get("venv", "-")
    env = dict(env)
    for k, v in impl.get("env", {}).items():
        env[k] = expand([v], work, venv)[0]
    shutil.rmtree(out_dir, ignore_errors=True)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    base = [mcpspec, "server", "--report-dir", str(out_dir), "-j", str(jobs), "--no-progress",
            "--status-level", "none", "--final-status-level", "none"]
    logfile = work / "logs" / f"{name}-{transport}.server.log"
    logfile.parent.mkdir(parents=True, exist_ok=True)
    server = None
    t0 = time.monotonic()
    try:
        if "stdio" in spec:
            cmd = [*base, "--", *expand(spec["stdio"], work, venv)]
        else:
            kind = "http" if "http" in spec else "sse"
            port = free_port() if spec.get("port") == "env" else None
            senv = dict(env)
            if port:
                senv["PORT"] = str(port)
                senv["NODE_OPTIONS"] = f"--require {REPO / 'bench' / 'loopback.cjs'}"
            argv = expand(spec[kind], work, venv, port)
            with open(logfile, "w") as lf:
                server = subprocess.Popen(argv, env=senv, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE if not port else lf,
                                          stderr=lf, text=True)
            if port:
                wait_for_port(port, server, logfile)
                url = f"http://127.0.0.1:{port}{spec['path']}"
            else:
                line = server.stdout.readline().strip()
                if not line.startswith("listening on http://127.0.0.1:"):
                    raise RuntimeError(f"unexpected first line {line!r}: {logfile.read_text()}")
                url = line.split(" ", 2)[2]
            cmd = [*base, "--url" if kind == "http" else "--sse-url", url]
        log(f"{name}/{transport}: {' '.join(cmd[len(base):])}")
        with open(work / "logs" / f"{name}-{transport}.mcpspec.log", "w") as lf:
            code = subprocess.run(cmd, env=env, stdout=lf, stderr=subprocess.STDOUT).returncode
    finally:
        if server is not None:
            if server.stdin:
                server.stdin.close()
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
    return code, time.monotonic() - t0


def targets(cfg, selection):
    """(kind, name, transport, spec, impl) of each selected target; kind is a key of KINDS.
    A selection names an implementation, an implementation/transport, or a kind (`clients`)."""
    out = []
    for kind in KINDS:
        for name, impl in cfg.get(kind, {}).items():
            for transport, spec in impl["transports"].items():
                key = f"{name}/{transport}"
                if not selection or kind in selection or name in selection or key in selection:
                    out.append((kind, name, transport, spec, impl))
    if selection and not out:
        sys.exit(f"no target matches {selection}; known: "
                 + ", ".join(f"{n}/{t}" for k in KINDS for n, i in cfg.get(k, {}).items()
                             for t in i["transports"]))
    return out


def mcpspec_binary():
    if os.environ.get("MCPSPEC"):
        return str(Path(os.environ["MCPSPEC"]).resolve())
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    binary = target / "debug" / "mcpspec"
    if not binary.exists():
        subprocess.run(["cargo", "build", "--locked", "-q", "-p", "mcpspec"], cwd=REPO, check=True)
    return str(binary)


def git_commit():
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "harness",
                            "scenarios", "Cargo.lock"], capture_output=True, text=True).stdout
    return head + (" (with uncommitted harness changes)" if dirty.strip() else "")


def report_dirs():
    """The committed report directories: the servers', then the clients' (the order of the
    matrix's columns; harness/cli/tests/reports.rs merges them in the same order)."""
    return [d for base in (SERVERS, CLIENTS)
            for d in sorted(p.parent for p in base.glob("*/*/report.json"))]


def merge(mcpspec):
    subprocess.run([mcpspec, "report", "merge", "--out", str(REPORTS),
                    *[str(d.relative_to(REPO)) for d in report_dirs()]], cwd=REPO, check=True,
                   stdout=sys.stderr)


def record_run(ran, wall, version):
    """Appends this run to regenerations.json and drops the runs none of whose targets' reports
    are still committed (every one rerun since); returns the runs left, oldest first."""
    runs = json.loads(HISTORY.read_text()) if HISTORY.exists() else []
    if ran:
        runs.append({"finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                     "mcpspec": version, "commit": git_commit(),
                     "targets": [f"{kind}/{name}/{transport}"
                                 for (kind, name, transport, _, _), _ in ran],
                     "wall_s": round(wall), "parallel": RUN_PARALLEL, "jobs": RUN_JOBS})
    committed = {str(d.relative_to(REPORTS)) for d in report_dirs()}
    kept, later = [], set()
    for run in reversed(runs):
        mine = [t for t in run["targets"] if t in committed and t not in later]
        later.update(run["targets"])
        if mine:
            kept.append(run)
    kept.reverse()
    HISTORY.write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n")
    return kept


def run_of(runs, target):
    """The number (1-based) of the last run that ran `target`, or None."""
    for n in range(len(runs), 0, -1):
        if target in runs[n - 1]["targets"]:
            return n
    return None



def wall_sentence(runs):
    """What the README says of the regeneration's wall time: one command's, or (after partial
    reruns) the sum of several."""
    total = sum(r["wall_s"] for r in runs)
    if len(runs) == 1:
        return (f"Regenerating the full set took **{total} s** of wall time: one run of one command,\n"
                "from the start of its installs to its merge.")
    return (f"Regenerating the full set took **{total} s** of wall time: the sum of\n"
            "those runs' wall times (each from the start of its installs to its merge), not one timed run.")

def write_readme(cfg, ran, wall, mcpspec):
    version = subprocess.run([mcpspec, "--version"], capture_output=True, text=True).stdout.strip()
    runs = record_run(ran, wall, version)
    run_rows = []
    for n, run in enumerate(runs, 1):
        mine = sum(1 for d in report_dirs()
                   if run_of(runs, str(d.relative_to(REPORTS))) == n)
        run_rows.append(f"| {n} | {run['finished']} | {run['mcpspec']} at `{run['commit']}` | "
                        f"{mine} of {len(run['targets'])} | {run['wall_s']} s | "
                        f"{run['parallel']} | {run['jobs']} |")
    rows = []
    total_ms = 0
    for d in report_dirs():
        doc = json.loads((d / "report.json").read_text())
        s, run = doc["summary"], doc["run"]
        offered = [p["version"] for p in doc["probes"] if p.get("supported")]
        rel = d.relative_to(REPORTS)
        total_ms += run["wall_ms"]
        rows.append(f"| [{rel}]({rel}/summary.md) | `{run['target']}` | "
                    f"{', '.join(offered)} | {run['exit_code']} | "
                    + " | ".join(str(s.get(k, 0)) for k in
                                 ("passed", "failed", "warned", "not_applicable", "errored"))
                    + f" | {run['wall_ms'] / 1000:.0f} s | {run.get('jobs', '')} | "
                    + f"{run_of(runs, str(rel)) or '?'} |")
    pins = "\n".join(f"- npm `{p}`" for p in cfg["packages"]["npm"])
    pins += "\n" + "\n".join(f"- PyPI `{p}` ({name})" for name, ps in cfg["packages"]["pypi"].items()
                             for p in ps)
    pins += "".join(f"\n- crates.io: `{src}/Cargo.toml` ({name}), built in the scratch directory"
                    for name, src in cfg["packages"].get("cargo", {}).items())
    text = f"""# Conformance matrix of real MCP implementations

**[matrix.md](matrix.md)** ([matrix.html](matrix.html)): every case mcpspec runs, per
implementation × transport, at every protocol version the implementation offers: servers
(`mcpspec server`, the `server/…` rows) and clients (`mcpspec client` playing a scripted
server to a real client host, the `client/…` rows), one table per role. In matrix.html each
cell that has something to say links to it below the matrix: a failure's or warning's
requirement, Expected and Actual, or why the case does not apply. Each failure and warning is
explained in [notes/](notes/) (one file per implementation: the requirement, one line of
evidence, the spec basis).

## What was run

The committed reports come from {len(runs)} run(s) of `reports/regenerate.sh` on this machine
(2 cores, shared), recorded in [regenerations.json](regenerations.json) (the table's `run`
column says which run made each target's report):

| run | finished | mcpspec | targets still from it | wall | targets at a time | -j |
|---:|---|---|---|---:|---:|---:|
{chr(10).join(run_rows)}

{wall_sentence(runs)}
The committed targets' own wall times (the table's `wall`, each run with the `-j` shown) add up
to **{total_ms / 1000:.0f} s**: a full regeneration one target at a time (`--parallel 1`)
takes about that, plus the installs.

Pinned implementations ([implementations.yaml](implementations.yaml)):

{pins}

| target | started as | versions offered | exit | pass | fail | warn | n/a | error | wall | -j | run |
|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

`<work>` stands for the scratch directory. Each `servers/<implementation>/<transport>/` and
`clients/<client>/<transport>/` holds the run's `summary.md` and a compact `report.json`: the
transcripts are not kept (regenerate to see them, they are in `$WORK/runs/`), nor the cases of
the versions the target does not offer (its `probes` say which it offers; the matrix shows
those cases as not run, —), which keeps `reports/` under 5 MB. The clients are
the hosts the tests use (harness/cli/tests/real-clients: `ts-client.mjs` on the TypeScript
SDK, `py-client.py` on the Python SDK 2.x, the Inspector CLI) and
[clients/py-client-1x.py](clients/py-client-1x.py), the same host on the Python SDK 1.x API.

Errored cases (💥) are no verdict: on a loaded machine a Python server started per case can miss
mcpspec's start-up window ("no answer to initialize … although the probe got one"); rerun with
fewer `--parallel` targets or `--jobs`.

## How to regenerate

    reports/regenerate.sh                            # all targets (needs npm, PyPI, git)
    reports/regenerate.sh --only mcp-server-time     # one implementation, or impl/transport
    reports/regenerate.sh --only clients             # every client (or: --only servers)
    reports/regenerate.sh --check server-everything/stdio
        # rerun one target and print `mcpspec diff` against the committed report
        # (exit 1 when a verdict changed; nothing under reports/ is rewritten)
    reports/regenerate.sh --merge-only
        # run nothing: merge the committed reports into matrix.md/html, rewrite this README

`MCPSPEC=path/to/mcpspec` picks the binary (default: `target/debug/mcpspec`, built when
missing), `WORK=dir` the scratch directory (default: `target/reports-work`). Bumping a pin in
implementations.yaml is a reviewed change: regenerate, and the diff of the report.json files
is the diff of verdicts; update notes/ for every new failure.

The test `cargo test -p mcpspec --test reports` (no network) checks that every committed
report.json fits `schema/report.schema.json`, that its case ids are still scenarios mcpspec
runs, and that matrix.md is what `mcpspec report merge` makes of the committed directories.
"""
    (REPORTS / "README.md").write_text(text)


RUN_PARALLEL = 3
RUN_JOBS = 4


def draft_notes(name):
    """Prints the skeleton of notes/<name>.md from the committed reports: each broken
    requirement once, with the transports and versions it broke on, one example's
    Expected/Actual and the spec link. Its verdict line is for a person to write."""
    rows = {}
    for d in report_dirs():
        if d.parent.name != name:
            continue
        doc = json.loads((d / "report.json").read_text())
        for r in doc.get("rollup", []):
            e = rows.setdefault(r["requirement"], {"r": r, "where": []})
            versions = sorted({c.rsplit("@", 1)[1] for c in r["cases"]})
            e["where"].append(f"{d.name} ({', '.join(versions)}; {len(r['cases'])} cases)")
    print(f"# {name}: failures and warnings explained\n")
    for req, e in sorted(rows.items(), key=lambda kv: (kv[1]["r"]["level"] != "must", kv[0])):
        r, ex = e["r"], e["r"].get("example") or {}
        actual = " ".join(str(ex.get("actual", "")).split())[:240]
        print(f"## {r['level'].upper()} `{req}`\n")
        print(f"- on: {'; '.join(e['where'])}")
        print(f"- evidence ({ex.get('case', '?')}): expected {'; '.join(ex.get('expected', []))}"
              f" — actual {actual}")
        print(f"- spec: {r['spec_url']}")
        print("- verdict: \n")


def main():
    global RUN_PARALLEL, RUN_JOBS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="an implementation or implementation/transport (repeatable)")
    ap.add_argument("--check", metavar="NAME",
                    help="rerun NAME and diff against the committed report; changes nothing")
    ap.add_argument("--parallel", type=int, default=RUN_PARALLEL, help="targets at a time")
    ap.add_argument("--jobs", type=int, default=RUN_JOBS, help="mcpspec -j for each target")
    ap.add_argument("--skip-install", action="store_true",
                    help="reuse the packages already installed in WORK")
    ap.add_argument("--merge-only", action="store_true",
                    help="run no target: tidy the committed reports, merge them, rewrite README")
    ap.add_argument("--draft-notes", metavar="IMPLEMENTATION",
                    help="print a skeleton of notes/IMPLEMENTATION.md from the committed reports")
    args = ap.parse_args()
    if args.draft_notes:
        draft_notes(args.draft_notes)
        return
    RUN_PARALLEL, RUN_JOBS = args.parallel, args.jobs
    cfg = yaml.safe_load((REPORTS / "implementations.yaml").read_text())
    if args.merge_only:
        mcpspec = mcpspec_binary()
        for d in report_dirs():
            doc = json.loads((d / "report.json").read_text())
            tidy(doc)
            write_compact(doc, d / "report.json")
        merge(mcpspec)
        write_readme(cfg, [], 0, mcpspec)
        return
    work = Path(os.environ.get("WORK", REPO / "target" / "reports-work")).resolve()
    work.mkdir(parents=True, exist_ok=True)
    mcpspec = mcpspec_binary()
    chosen = targets(cfg, [args.check] if args.check else args.only)
    t0 = time.monotonic()
    env = dict(os.environ)
    if args.skip_install:
        env["PATH"] = f"{work / 'node' / 'node_modules' / '.bin'}{os.pathsep}{env['PATH']}"
        copy_hosts(cfg, work)
    else:
        env = install(cfg, work)
    fixtures(work)
    runs = work / ("check" if args.check else "runs")

    def one(t):
        kind, name, transport, spec, impl = t
        out = runs / kind / name / transport
        run = run_client if kind == "clients" else run_target
        code, secs = run(mcpspec, name, transport, spec, impl, env, work, out, RUN_JOBS)
        log(f"{name}/{transport}: exit {code} in {secs:.0f} s")
        return t, code

    with ThreadPoolExecutor(max_workers=max(1, RUN_PARALLEL)) as pool:
        results = list(pool.map(one, chosen))
    bad = [f"{t[1]}/{t[2]} (exit {c})" for t, c in results if c not in (0, 1)]
    if bad:
        log("could not run: " + ", ".join(bad) + f"; see {work / 'logs'}")
        sys.exit(3)

    if args.check:
        changed = False
        for (kind, name, transport, _, _), _ in results:
            compacted = work / "check-compact" / kind / name / transport
            compact(runs / kind / name / transport, compacted, work)
            committed = KINDS[kind] / name / transport
            log(f"mcpspec diff {committed.relative_to(REPO)} <rerun>")
            code = subprocess.run([mcpspec, "diff", "--color", "never", str(committed),
                                   str(compacted)]).returncode
            changed |= code != 0
        sys.exit(1 if changed else 0)

    for (kind, name, transport, _, _), _ in results:
        compact(runs / kind / name / transport, KINDS[kind] / name / transport, work)
    merge(mcpspec)
    write_readme(cfg, results, time.monotonic() - t0, mcpspec)
    log(f"done in {time.monotonic() - t0:.0f} s: reports/matrix.md")


if __name__ == "__main__":
    main()
