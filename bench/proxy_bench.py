"""What `mcpspec proxy` costs (issue #17), measured against the reference server.

Prints, for stdio and Streamable HTTP on 127.0.0.1, the p50 and p99 of a ping's
round trip direct and through the proxy, and the difference (the latency the
proxy adds); and, over stdio, pings relayed per second when the client sends
them back to back (each ping is two messages through the proxy: the request
and its answer).

    python3 bench/proxy_bench.py MCPSPEC [PINGS] [FLOOD]

Run by bench/proxy.sh; timings live here, never in tests.
"""

import http.client
import json
import subprocess
import sys
import threading
import time

MCPSPEC = sys.argv[1]
PINGS = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
FLOOD = int(sys.argv[3]) if len(sys.argv) > 3 else 50000
VERSION = "2025-11-25"

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": VERSION,
        "capabilities": {},
        "clientInfo": {"name": "proxy-bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def line(msg):
    return (json.dumps(msg, separators=(",", ":")) + "\n").encode()


def ping(i):
    return line({"jsonrpc": "2.0", "id": i, "method": "ping"})


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * p / 100))]


def stdio_session(argv):
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    proc.stdin.write(line(INIT))
    proc.stdin.flush()
    proc.stdout.readline()
    proc.stdin.write(line(INITIALIZED))
    proc.stdin.flush()
    return proc


def stdio_rtts(argv):
    proc = stdio_session(argv)
    rtts = []
    for i in range(1, PINGS + 1):
        t = time.perf_counter()
        proc.stdin.write(ping(i))
        proc.stdin.flush()
        proc.stdout.readline()
        rtts.append((time.perf_counter() - t) * 1000)
    proc.stdin.close()
    proc.wait(timeout=30)
    return rtts


def stdio_flood(argv):
    """Pings per second, FLOOD pings written back to back by a thread: as
    the answers arrive, and until the process has exited (for the proxy:
    until it has judged every message)."""
    proc = stdio_session(argv)
    batch = b"".join(ping(i) for i in range(1, FLOOD + 1))

    def feed():
        proc.stdin.write(batch)
        proc.stdin.flush()

    t = time.perf_counter()
    writer = threading.Thread(target=feed)
    writer.start()
    for _ in range(FLOOD):
        proc.stdout.readline()
    took = time.perf_counter() - t
    writer.join()
    proc.stdin.close()
    proc.wait(timeout=120)
    done = time.perf_counter() - t
    return FLOOD / took, FLOOD / done


def listening(proc, prefix):
    """The first line of `proc`'s stream starting with `prefix`: its URL."""
    for raw in proc:
        text = raw.decode()
        if text.startswith(prefix):
            return text[len(prefix):].split()[0].rstrip(",")
    raise SystemExit("no address in the output")


def http_rtts(url):
    host, rest = url[len("http://"):].split("/", 1)
    conn = http.client.HTTPConnection(host)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }

    def post(msg, extra):
        conn.request("POST", "/" + rest, json.dumps(msg), {**headers, **extra})
        resp = conn.getresponse()
        resp.read()
        return resp

    resp = post(INIT, {})
    session = {"Mcp-Session-Id": resp.getheader("Mcp-Session-Id") or ""}
    session["MCP-Protocol-Version"] = VERSION
    post(INITIALIZED, session)
    rtts = []
    for i in range(1, PINGS + 1):
        t = time.perf_counter()
        post({"jsonrpc": "2.0", "id": i, "method": "ping"}, session)
        rtts.append((time.perf_counter() - t) * 1000)
    return rtts


def report(name, direct, proxied):
    d50, d99 = pct(direct, 50), pct(direct, 99)
    p50, p99 = pct(proxied, 50), pct(proxied, 99)
    print(
        f"{name:6} ping round trip (ms, {PINGS} pings): direct p50 {d50:.3f} p99 {d99:.3f}; "
        f"proxied p50 {p50:.3f} p99 {p99:.3f}; added p50 {p50 - d50:.3f} p99 {p99 - d99:.3f}"
    )


def main():
    server = [MCPSPEC, "reference", "server"]
    proxied = [MCPSPEC, "proxy", "--quiet", "--"] + server
    report("stdio", stdio_rtts(server), stdio_rtts(proxied))
    (direct_rate, _), (relayed, judged) = stdio_flood(server), stdio_flood(proxied)
    print(
        f"stdio  throughput ({FLOOD} pings back to back): direct {direct_rate:,.0f} pings/s; "
        f"proxied {relayed:,.0f} pings/s = {2 * relayed:,.0f} messages/s relayed, "
        f"{2 * judged:,.0f} messages/s relayed and judged (until the proxy's exit)"
    )
    ref = subprocess.Popen(
        [MCPSPEC, "reference", "server", "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    proxy = None
    try:
        base = listening(ref.stdout, "listening on ")
        mcp = base + "/mcp"
        proxy = subprocess.Popen(
            [MCPSPEC, "proxy", "--quiet", "--listen", "127.0.0.1:0", "--upstream", mcp],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        via = listening(proxy.stderr, "mcpspec proxy: listening on ")
        report("http", http_rtts(mcp), http_rtts(via))
    finally:
        for p in (proxy, ref):
            if p is not None:
                p.terminate()
                p.wait(timeout=30)


if __name__ == "__main__":
    main()
