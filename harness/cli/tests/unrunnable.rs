//! Targets that cannot be tested at all: nothing listens at the URL, a web
//! server that is no MCP server, a process that dies with a message, one
//! that is missing, one that writes garbage. Each is one clear error —
//! what the target said, exit 3, within the start-up timeout — never
//! "conforming" (exit 0) and never a line per case (#14 items 1, 3, 4, 9).
//! The HTTP stand-ins are a few lines of `std::net` on 127.0.0.1, each
//! answering every request with one canned response.

mod support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use serde_json::Value;
use support::{mcpspec, temp_dir, Run};

/// Far above what any of these runs may take: they must end at once.
const LIMIT: Duration = Duration::from_secs(60);

/// An HTTP server on 127.0.0.1 answering every request with `status`,
/// `content_type` and `body`; it lives as long as the test process.
fn canned(status: &str, content_type: &str, body: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local addr").port();
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let response = response.clone();
            std::thread::spawn(move || {
                let mut stream = stream;
                let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
                // Read the head and whatever body is announced, then answer.
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                while let Ok(n) = stream.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    seen.extend_from_slice(&buf[..n]);
                    if let Some(end) = find(&seen, b"\r\n\r\n") {
                        let head = String::from_utf8_lossy(&seen[..end]).to_ascii_lowercase();
                        let length = head
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if seen.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let _ = stream.write_all(response.as_bytes());
            });
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Runs `server` with `args` and a JSON report; the run and the report.
fn run(name: &str, args: &[&str]) -> (Run, Value, Duration) {
    let json = temp_dir(name).join("report.json");
    let mut all = vec!["server", "--json", json.to_str().expect("utf-8 path")];
    all.extend(args);
    let started = Instant::now();
    let run = mcpspec(&all, LIMIT);
    let took = started.elapsed();
    let text = std::fs::read_to_string(&json).unwrap_or_default();
    let doc = serde_json::from_str(&text).unwrap_or(Value::Null);
    (run, doc, took)
}

/// The run is one error: exit 3, no case judged or listed, the reason in
/// the report, the console short, and every `needles` in the reason.
fn assert_unavailable(name: &str, (run, doc, took): (Run, Value, Duration), needles: &[&str]) {
    assert_eq!(run.code, Some(3), "{name}: {}\n{}", run.stdout, run.stderr);
    let reason = doc["run"]["unavailable"].as_str().unwrap_or_default();
    for needle in needles {
        assert!(
            reason.contains(needle),
            "{name}: the reason lacks {needle:?}: {reason:?}"
        );
    }
    assert_eq!(doc["results"].as_array().map(Vec::len), Some(0), "{name}");
    let lines = run.stdout.lines().count() + run.stderr.lines().count();
    assert!(
        lines < 40,
        "{name}: {lines} lines of output:\n{}",
        run.stdout
    );
    assert!(took < Duration::from_secs(30), "{name}: took {took:?}");
}

#[test]
fn nothing_listening_at_the_url_is_no_conforming_server() {
    assert_unavailable(
        "dead url",
        run("dead", &["--url", "http://127.0.0.1:1/mcp"]),
        &[
            "completed no handshake at any version",
            "Connection refused",
        ],
    );
}

#[test]
fn a_web_server_that_refuses_posts_is_no_mcp_server() {
    let url = canned("501 Not Implemented", "text/plain", "no");
    assert_unavailable(
        "501",
        run("501", &["--url", &url]),
        &["negotiated none", "HTTP 501"],
    );
}

#[test]
fn an_html_page_is_no_answer_and_is_said_at_once() {
    let url = canned("200 OK", "text/html", "<html><body>hello</body></html>");
    assert_unavailable(
        "html",
        run("html", &["--url", &url, "--startup-timeout", "20s"]),
        &["text/html"],
    );
}

#[test]
fn a_crashing_target_is_quoted() {
    assert_unavailable(
        "crash",
        run(
            "crash",
            &[
                "--",
                "python3",
                "-c",
                "import sys; sys.exit('boom: missing config file')",
            ],
        ),
        &["exited with code 1", "boom: missing config file"],
    );
}

#[test]
fn a_missing_command_is_one_error() {
    assert_unavailable(
        "missing",
        run("missing", &["--", "/nonexistent/mcp-server"]),
        &["failed to start", "/nonexistent/mcp-server"],
    );
}

#[test]
fn a_target_that_writes_no_json_rpc_is_quoted() {
    assert_unavailable(
        "garbage",
        run("garbage", &["--", "yes", "garbage"]),
        &["no JSON-RPC message", "«garbage»"],
    );
}

/// A server that answers every initialize with a version of its own
/// (here one no release has) negotiates none of the selected versions:
/// every case would be not applicable, and a run that judged nothing is no
/// pass.
#[test]
fn a_run_where_every_case_is_not_applicable_judges_nothing() {
    let server = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        result = {"protocolVersion": "2099-01-01", "capabilities": {},
                  "serverInfo": {"name": "future", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
"#;
    let (run, doc, _) = run(
        "none-offered",
        &[
            "--spec-version",
            "2025-06-18",
            "--filter",
            "server/lifecycle/ping/",
            "--",
            "python3",
            "-c",
            server,
        ],
    );
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    let reason = doc["run"]["unavailable"].as_str().unwrap_or_default();
    assert!(reason.contains("negotiated none"), "{reason}");
    assert!(reason.contains("2099-01-01"), "{reason}");
}

/// A handshake-era server that refuses `server/discover` with HTTP 400 and
/// an error whose id is its own marker (not the request's, not null) has
/// refused it: 2026-07-28 is not offered, not "unclear" (item 9).
#[test]
fn a_discover_refusal_with_a_foreign_id_is_not_offered() {
    let body = r#"{"jsonrpc":"2.0","id":"server-error","error":{"code":-32600,"message":"Bad Request: Missing session ID"}}"#;
    let url = canned("400 Bad Request", "application/json", body);
    let (run, doc, _) = run(
        "foreign-id",
        &["--url", &url, "--spec-version", "2026-07-28"],
    );
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    let probe = &doc["probes"][0];
    assert_eq!(probe["version"], "2026-07-28");
    assert_eq!(probe["supported"], false, "{probe}");
    let detail = probe["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("speaks only handshake-era"), "{detail}");
}

/// A target that floods notifications and never answers initialize
/// completed no handshake: said once, within the step timeout — not a
/// probe that never ends, not a case per scenario blaming "an overloaded
/// host".
#[test]
fn a_flooding_target_that_never_answers_is_one_error() {
    let flood = r#"
import json, sys
line = json.dumps({"jsonrpc": "2.0", "method": "notifications/message",
                   "params": {"level": "info", "data": "x" * 50}}) + "\n"
while True:
    sys.stdout.write(line)
"#;
    assert_unavailable(
        "flood",
        run(
            "flood",
            &["--spec-version", "2025-06-18", "--", "python3", "-c", flood],
        ),
        &["no answer to initialize", "other message(s) instead"],
    );
}
