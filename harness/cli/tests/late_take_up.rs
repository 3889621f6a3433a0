//! A cancellation does not overtake its request over Streamable HTTP (issue
//! #18's bench: server-everything took a call's POST up 480 ms after it was
//! sent, after the cancellation sent 300 ms in, ignored that cancellation of
//! a request it had not seen, and answered the call: a false
//! `cancellation.no-response` warning).
//!
//! A proxy on 127.0.0.1 in front of the reference server holds every
//! `tools/call` POST for 400 ms before it passes it on, as a busy server
//! takes a request up late, and passes everything else on at once. The
//! conformant reference must still pass `no-response`: the `notify` step
//! waits until the call's POST has its response head (the reference answers
//! with event streams) before it sends the cancellation.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use support::{mcpspec, temp_dir, HttpReference};

/// How long the proxy holds a `tools/call` POST: past the scenario's 300 ms
/// lead, within the runner's 500 ms wait for a request to reach the server.
const HOLD: Duration = Duration::from_millis(400);

/// Starts the proxy; returns its MCP endpoint.
fn proxy(upstream: &str) -> String {
    let upstream = upstream
        .strip_prefix("http://")
        .expect("an http:// base")
        .to_owned();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("address"));
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let up = upstream.clone();
            std::thread::spawn(move || {
                let _ = relay(conn, &up);
            });
        }
    });
    url
}

/// One request per connection: read it, hold it if it is a `tools/call`,
/// send it upstream with `Connection: close`, and copy the response back as
/// it streams, to the upstream's close.
fn relay(conn: TcpStream, upstream: &str) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut head = String::new();
    reader.read_line(&mut head)?;
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        let name = line
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if name == "content-length" {
            length = line
                .split_once(':')
                .and_then(|(_, v)| v.trim().parse().ok())
                .unwrap_or(0);
        }
        if name != "connection" && name != "keep-alive" {
            head.push_str(&line);
        }
    }
    head.push_str("Connection: close\r\n\r\n");
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    if String::from_utf8_lossy(&body).contains(r#""method":"tools/call""#) {
        std::thread::sleep(HOLD);
    }
    let mut up = TcpStream::connect(upstream)?;
    up.write_all(head.as_bytes())?;
    up.write_all(&body)?;
    let mut out = conn;
    std::io::copy(&mut up, &mut out)?;
    Ok(())
}

#[test]
fn a_cancellation_waits_for_a_call_the_server_takes_up_late() {
    let server = HttpReference::start(&[]);
    let url = proxy(&server.base);
    let dir = temp_dir("late-take-up");
    let report = dir.join("report");
    let run = mcpspec(
        &[
            "server",
            "--url",
            &url,
            "--spec-version",
            "2025-11-25",
            "--filter",
            "server/cancellation/in-flight/no-response",
            "--report-dir",
            report.to_str().expect("utf-8 path"),
            "--no-progress",
        ],
        Duration::from_secs(60),
    );
    let doc: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(report.join("report.json")).expect("report.json"),
    )
    .expect("JSON");
    let results = doc["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{}", run.stderr);
    let case = &results[0];
    let transcript =
        std::fs::read_to_string(report.join(case["transcript"].as_str().expect("a transcript")))
            .expect("transcript");
    assert_eq!(case["outcome"], "pass", "{case}\n{transcript}");
    assert!(
        transcript.contains("to reach the server"),
        "the wait is noted: {transcript}"
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}
