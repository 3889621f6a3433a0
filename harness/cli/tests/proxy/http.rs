//! `mcpspec proxy --listen … --upstream URL` (Streamable HTTP) and
//! `--sse-upstream URL` (legacy HTTP+SSE) in front of the reference HTTP
//! server, with the reference client.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::support::{self, mcpspec, HttpReference, BIN};
use super::{violations, LIMIT};

/// `mcpspec proxy --listen 127.0.0.1:0 --upstream URL`, and the base URL
/// it says it listens on.
fn http_proxy(upstream: &str) -> (Child, String, std::sync::mpsc::Receiver<String>) {
    listening_proxy("--upstream", upstream)
}

/// The proxy with `flag URL` (`--upstream`, `--sse-upstream`).
fn listening_proxy(
    flag: &str,
    upstream: &str,
) -> (Child, String, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(BIN)
        .args(["proxy", "--listen", "127.0.0.1:0", flag, upstream])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy starts");
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let first = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("the proxy says where it listens");
    let url = first
        .strip_prefix("mcpspec proxy: listening on ")
        .and_then(|rest| rest.split(',').next())
        .unwrap_or_else(|| panic!("unexpected first line {first:?}"))
        .to_owned();
    (child, url, rx)
}

/// Stops the HTTP proxy with SIGINT; its exit code and stderr lines.
fn stop_http(mut child: Child, lines: &std::sync::mpsc::Receiver<String>) -> (Option<i32>, String) {
    // SAFETY: kill(2) of the proxy this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let until = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > until {
            let _ = child.kill();
            panic!("the proxy did not stop");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut text = String::new();
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(2)) {
        text.push_str(&line);
        text.push('\n');
    }
    (status.code(), text)
}

#[test]
fn http_two_clean_clients_at_once_are_two_sessions_and_nothing_is_found() {
    let server = HttpReference::start(&[]);
    let (proxy, url, lines) = http_proxy(&server.mcp());
    assert!(url.ends_with("/mcp"), "{url}");
    let clients: Vec<support::Run> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    mcpspec(
                        &["reference", "client", "--timeout", "5s", "--url", &url],
                        LIMIT,
                    )
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("client"))
            .collect()
    });
    let (code, err) = stop_http(proxy, &lines);
    for client in &clients {
        assert_eq!(client.code, Some(0), "{}", client.stderr);
        assert!(client.stderr.contains("workflow done"), "{}", client.stderr);
    }
    assert_eq!(violations(&err), Vec::<&str>::new(), "{err}");
    assert!(err.contains("2 session(s)"), "{err}");
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn http_client_fault_is_the_clients() {
    let server = HttpReference::start(&[]);
    let (proxy, url, lines) = http_proxy(&server.mcp());
    let _ = mcpspec(
        &[
            "reference",
            "client",
            "--timeout",
            "3s",
            "--fault",
            "http-bad-accept",
            "--url",
            &url,
        ],
        LIMIT,
    );
    let (code, err) = stop_http(proxy, &lines);
    let found = violations(&err);
    assert!(
        found
            .iter()
            .any(|l| l.contains("client broke MUST http.post.accept")),
        "{err}"
    );
    assert!(found.iter().all(|l| l.contains(": client broke ")), "{err}");
    assert_eq!(code, Some(1), "{err}");
}

#[test]
fn http_server_fault_is_the_servers() {
    let server = HttpReference::start(&["stringify-ids"]);
    let (proxy, url, lines) = http_proxy(&server.mcp());
    let _ = mcpspec(
        &["reference", "client", "--timeout", "3s", "--url", &url],
        LIMIT,
    );
    let (code, err) = stop_http(proxy, &lines);
    let found = violations(&err);
    assert!(
        found
            .iter()
            .any(|l| l.contains("server broke MUST jsonrpc.response.id-matches")),
        "{err}"
    );
    assert!(found.iter().all(|l| l.contains(": server broke ")), "{err}");
    assert_eq!(code, Some(1), "{err}");
}

#[test]
fn legacy_sse_clean_pair_finds_nothing_and_a_server_fault_is_the_servers() {
    for (faults, clean) in [(&[][..], true), (&["stringify-ids"][..], false)] {
        let server = HttpReference::start(faults);
        let (proxy, url, lines) = listening_proxy("--sse-upstream", &server.sse());
        assert!(url.ends_with("/sse"), "{url}");
        let client = mcpspec(
            &["reference", "client", "--timeout", "3s", "--sse-url", &url],
            LIMIT,
        );
        let (code, err) = stop_http(proxy, &lines);
        let found = violations(&err);
        if clean {
            assert_eq!(client.code, Some(0), "{}", client.stderr);
            assert!(client.stderr.contains("workflow done"), "{}", client.stderr);
            assert_eq!(found, Vec::<&str>::new(), "{err}");
            assert_eq!(code, Some(0), "{err}");
        } else {
            assert!(
                found
                    .iter()
                    .any(|l| l.contains("server broke MUST jsonrpc.response.id-matches")),
                "{err}"
            );
            assert!(found.iter().all(|l| l.contains(": server broke ")), "{err}");
            assert_eq!(code, Some(1), "{err}");
        }
    }
}
