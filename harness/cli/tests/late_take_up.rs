//! A server that takes a POST up late over Streamable HTTP gets no false
//! `cancellation.no-response` warning. A proxy on 127.0.0.1 in front of the
//! reference server holds the POSTs of one kind before it passes them on, as
//! a busy server takes a request up late, and passes everything else on at
//! once. The conformant reference must still pass `no-response`:
//!
//! - The call's POST held 400 ms (issue #18's bench: server-everything took a
//!   call's POST up 480 ms after it was sent, after the cancellation sent
//!   300 ms in, ignored that cancellation of a request it had not seen, and
//!   answered the call). The `notify` step waits until the call's POST has
//!   its response head (the reference answers with event streams) before it
//!   sends the cancellation.
//! - The cancellation's POST held 1.5 s, past the end of the 1 s call (a
//!   loaded CI machine: the reference answered the call before it took the
//!   cancellation's POST up). The answer crossed the cancellation: the engine
//!   tolerates it, and the silence after the cancellation does too.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use support::{mcpspec, temp_dir, HttpReference};

/// How long the proxy holds a `tools/call` POST: past the scenario's 300 ms
/// lead, within the runner's 500 ms wait for a request to reach the server.
const HOLD: Duration = Duration::from_millis(400);

/// How long the proxy holds a cancellation's POST: past the end of the
/// scenario's 1 s call, which starts 300 ms before the cancellation.
const HOLD_CANCEL: Duration = Duration::from_millis(1500);

/// Starts the proxy, which holds a POST for `hold(body)`; returns its MCP
/// endpoint.
fn proxy(upstream: &str, hold: fn(&str) -> Duration) -> String {
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
                let _ = relay(conn, &up, hold);
            });
        }
    });
    url
}

/// One request per connection: read it, hold it for `hold(body)`, send it
/// upstream with `Connection: close`, and copy the response back as it
/// streams, to the upstream's close.
fn relay(conn: TcpStream, upstream: &str, hold: fn(&str) -> Duration) -> std::io::Result<()> {
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
    std::thread::sleep(hold(&String::from_utf8_lossy(&body)));
    let mut up = TcpStream::connect(upstream)?;
    up.write_all(head.as_bytes())?;
    up.write_all(&body)?;
    let mut out = conn;
    std::io::copy(&mut up, &mut out)?;
    Ok(())
}

/// `hold` of the POSTs whose body contains `method`.
fn holding(body: &str, method: &str, hold: Duration) -> Duration {
    if body.contains(&format!(r#""method":"{method}""#)) {
        hold
    } else {
        Duration::ZERO
    }
}

/// Runs `no-response` at 2025-11-25 through a proxy that holds POSTs for
/// `hold(body)`; returns the case's transcript, after checking it passed.
fn no_response_through(tag: &str, hold: fn(&str) -> Duration) -> String {
    let server = HttpReference::start(&[]);
    let url = proxy(&server.base, hold);
    let dir = temp_dir(tag);
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
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    transcript
}

#[test]
fn a_cancellation_waits_for_a_call_the_server_takes_up_late() {
    let transcript = no_response_through("late-take-up", |body| holding(body, "tools/call", HOLD));
    assert!(
        transcript.contains("to reach the server"),
        "the wait is noted: {transcript}"
    );
}

#[test]
fn an_answer_before_the_server_took_the_cancellation_up_crossed_it() {
    let transcript = no_response_through("late-cancel", |body| {
        holding(body, "notifications/cancelled", HOLD_CANCEL)
    });
    assert!(
        transcript.contains("crossed the cancellation of its request"),
        "the crossing is noted: {transcript}"
    );
}
