//! Authorization never hangs a run: a protected server whose token
//! endpoint takes the request and never answers. The server is a small
//! HTTP/1.1 responder on 127.0.0.1 (started per test, a thread per
//! connection) that does everything else as a demo authorization server
//! does — a 401 challenge naming its Protected Resource Metadata, the
//! metadata documents, dynamic registration, an authorize endpoint that
//! approves at once — so each side gets as far as the token request:
//!
//! - `mcpspec server --url` playing a public client through the flow
//!   (`server/auth/authorization-server/refresh-rotation`) ends within its
//!   limits, and the case is not a pass: the hanging request is the step's
//!   failure (what `http:` steps make of any request left unanswered);
//! - the reference client (`mcpspec reference client --url`) gives up
//!   within its request limit and exits non-zero.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

mod support;

use support::{mcpspec, temp_dir};

/// Starts the responder; its origin (`http://127.0.0.1:PORT`).
fn token_never_answers() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let origin = format!("http://{}", listener.local_addr().expect("address"));
    let base = origin.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let base = base.clone();
            std::thread::spawn(move || serve(conn, &base));
        }
    });
    origin
}

/// Answers the requests of one connection, until the token request, which
/// it holds for good.
fn serve(conn: TcpStream, origin: &str) {
    let Ok(mut out) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(conn);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or_default().to_owned(),
            parts.next().unwrap_or_default().to_owned(),
        );
        let mut length = 0usize;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let path = target.split('?').next().unwrap_or_default();
        let reply = match (method.as_str(), path) {
            ("POST", "/token") => {
                // Take the request and never answer it.
                std::thread::sleep(Duration::from_secs(3600));
                return;
            }
            (_, "/mcp") => (
                "401 Unauthorized",
                vec![(
                    "WWW-Authenticate",
                    format!(
                        "Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\""
                    ),
                )],
                r#"{"error":"invalid_token"}"#.to_owned(),
            ),
            ("GET", "/.well-known/oauth-protected-resource/mcp") => (
                "200 OK",
                vec![],
                format!(
                    r#"{{"resource":"{origin}/mcp","authorization_servers":["{origin}"]}}"#
                ),
            ),
            ("GET", "/.well-known/oauth-authorization-server") => (
                "200 OK",
                vec![],
                format!(
                    r#"{{"issuer":"{origin}","authorization_endpoint":"{origin}/authorize","token_endpoint":"{origin}/token","registration_endpoint":"{origin}/register","response_types_supported":["code"],"grant_types_supported":["authorization_code","refresh_token"],"code_challenge_methods_supported":["S256"],"token_endpoint_auth_methods_supported":["none"]}}"#
                ),
            ),
            ("POST", "/register") => (
                "201 Created",
                vec![],
                r#"{"client_id":"limits-client","token_endpoint_auth_method":"none"}"#.to_owned(),
            ),
            ("GET", "/authorize") => {
                let query = target.split_once('?').map_or("", |(_, q)| q);
                let param = |name: &str| {
                    url::form_urlencoded::parse(query.as_bytes())
                        .find(|(k, _)| k == name)
                        .map(|(_, v)| v.into_owned())
                        .unwrap_or_default()
                };
                let back = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("code", "limits-code")
                    .append_pair("state", &param("state"))
                    .finish();
                (
                    "302 Found",
                    vec![("Location", format!("{}?{back}", param("redirect_uri")))],
                    String::new(),
                )
            }
            _ => ("404 Not Found", vec![], r#"{"error":"not_found"}"#.to_owned()),
        };
        let (status, headers, body) = reply;
        let mut head = format!(
            "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        if out.write_all(head.as_bytes()).is_err() || out.write_all(body.as_bytes()).is_err() {
            return;
        }
    }
}

#[test]
fn a_token_endpoint_that_never_answers_ends_the_server_case_within_its_limits() {
    let origin = token_never_answers();
    let url = format!("{origin}/mcp");
    let reports = temp_dir("token-never-answers-server");
    let started = Instant::now();
    let run = mcpspec(
        &[
            "server",
            "--no-progress",
            "--spec-version",
            "2025-11-25",
            "--timeout",
            "1s",
            "--case-timeout",
            "8s",
            "--startup-timeout",
            "2s",
            "--filter",
            "server/auth/authorization-server/refresh-rotation",
            "--report-dir",
            reports.to_str().expect("utf-8 path"),
            "--url",
            &url,
        ],
        Duration::from_secs(90),
    );
    let took = started.elapsed();
    let code = run.code.unwrap_or_else(|| {
        panic!(
            "mcpspec server was still running after {took:?}\n{}",
            run.stderr
        )
    });
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(reports.join("report.json")).expect("report.json"),
    )
    .expect("report.json is JSON");
    let results = report["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{report}");
    let outcome = results[0]["outcome"].as_str().unwrap_or_default();
    assert_ne!(code, 0, "{}", run.stdout);
    assert!(
        outcome == "error" || outcome == "fail",
        "a token request never answered came to {outcome}: {}",
        results[0]
    );
    if outcome == "error" {
        assert_eq!(results[0]["blame"], "target", "{}", results[0]);
    }
}

#[test]
fn a_token_endpoint_that_never_answers_ends_the_reference_client_within_its_limits() {
    let origin = token_never_answers();
    let url = format!("{origin}/mcp");
    let started = Instant::now();
    let run = mcpspec(
        &["reference", "client", "--timeout", "3s", "--url", &url],
        Duration::from_secs(60),
    );
    let took = started.elapsed();
    let code = run
        .code
        .unwrap_or_else(|| panic!("the reference client was still running after {took:?}"));
    assert_ne!(code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stderr.contains("token"),
        "the client says what it gave up on: {}",
        run.stderr
    );
}
