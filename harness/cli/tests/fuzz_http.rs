//! `mcpspec fuzz server --url / --sse-url` and `mcpspec replay` against the
//! built-in reference server served over HTTP on 127.0.0.1: the clean
//! server yields nothing over either transport, a server that answers
//! notifications and one that fails on malformed input are found, with
//! reproducers that replay over the transport they record. Fixed seeds,
//! small budgets; every process is bounded in time and killed at the end.

mod support;

use std::time::Duration;

use support::{findings, fuzz, mcpspec, path, temp_dir, HttpReference as Server, Run};

use serde_json::Value;

/// Fuzzes the server at `url` (`flag`: `--url` or `--sse-url`); the run and the JSON summary.
fn fuzz_at(name: &str, flag: &str, url: &str, extra: &[&str]) -> (Run, Value) {
    let mut args = vec![flag, url];
    args.extend_from_slice(extra);
    let (run, doc, _) = fuzz(name, "server", &args, Duration::from_secs(120));
    (run, doc)
}

#[test]
fn clean_reference_server_yields_no_findings_over_either_http_transport() {
    let server = Server::start(&[]);
    for (flag, url) in [("--url", server.mcp()), ("--sse-url", server.sse())] {
        let (run, doc) = fuzz_at("clean", flag, &url, &["--runs", "1500"]);
        assert_eq!(run.code, Some(0), "{flag}\n{}\n{}", run.stdout, run.stderr);
        assert_eq!(doc["execs"], 1500);
        assert!(doc["execs_per_sec"].as_f64().is_some_and(|x| x > 0.0));
        assert!(findings(&doc).is_empty(), "{flag}: {doc}");
        assert!(run.stdout.contains("HTTP"), "{}", run.stdout);
    }
}

#[test]
fn answered_notifications_are_found_over_streamable_http_and_replayed() {
    let faulty = Server::start(&["answer-notification"]);
    let (run, doc) = fuzz_at("notify", "--url", &faulty.mcp(), &["--runs", "100"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let f = findings(&doc)
        .iter()
        .find(|f| f["requirement"] == "http.post.accepted-202")
        .unwrap_or_else(|| panic!("no 202 finding: {doc}"));
    assert_eq!(f["oracle"], "http");
    assert_eq!(f["confirmed"], true);
    let file = f["reproducer"].as_str().expect("path");
    let repro: Value =
        serde_json::from_str(&std::fs::read_to_string(file).expect("reproducer written"))
            .expect("reproducer is JSON");
    assert_eq!(repro["transport"], "http");
    assert_eq!(repro["url"], faulty.mcp());
    assert!(findings(&doc).iter().any(|f| f["oracle"] == "notification"));

    // Replayed over the URL it records it reproduces; pointed at a clean server it does not.
    let again = mcpspec(&["replay", file], Duration::from_secs(60));
    assert_eq!(again.code, Some(1), "{}\n{}", again.stdout, again.stderr);
    assert!(again.stdout.contains("REPRODUCED"), "{}", again.stdout);
    let clean = Server::start(&[]);
    let elsewhere = mcpspec(
        &["replay", file, "--url", &clean.mcp()],
        Duration::from_secs(60),
    );
    assert_eq!(
        elsewhere.code,
        Some(0),
        "{}\n{}",
        elsewhere.stdout,
        elsewhere.stderr
    );
}

#[test]
fn failing_on_malformed_input_is_found_over_both_transports_and_replayed() {
    let faulty = Server::start(&["exit-on-malformed"]);
    // Streamable HTTP: the malformed POST earns a 500 and the session ends.
    let (run, doc) = fuzz_at("eom-http", "--url", &faulty.mcp(), &["--runs", "300"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let found = findings(&doc);
    let server_error = found
        .iter()
        .find(|f| f["oracle"] == "http" && f["requirement"] == "http.post.malformed-400")
        .unwrap_or_else(|| panic!("no 5xx finding: {doc}"));
    assert_eq!(
        server_error["inputs"], 1,
        "minimised to the one malformed input"
    );
    assert!(found.iter().any(|f| f["oracle"] == "alive"), "{doc}");
    // Legacy HTTP+SSE: the stream ends.
    let (run, doc) = fuzz_at("eom-sse", "--sse-url", &faulty.sse(), &["--runs", "300"]);
    assert_eq!(run.code, Some(1), "{}\n{}", run.stdout, run.stderr);
    let ended = findings(&doc)
        .iter()
        .find(|f| f["oracle"] == "alive")
        .unwrap_or_else(|| panic!("no alive finding: {doc}"));
    let file = ended["reproducer"].as_str().expect("path");
    let again = mcpspec(&["replay", file], Duration::from_secs(60));
    assert_eq!(again.code, Some(1), "{}\n{}", again.stdout, again.stderr);
    assert!(again.stdout.contains("REPRODUCED"), "{}", again.stdout);
}

#[test]
fn http_usage_errors_and_unreachable_servers_have_their_exit_codes() {
    let both = mcpspec(
        &[
            "fuzz",
            "server",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--",
            "x",
        ],
        Duration::from_secs(30),
    );
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    let tls = mcpspec(
        &["fuzz", "server", "--url", "https://127.0.0.1:9/mcp"],
        Duration::from_secs(30),
    );
    assert_eq!(tls.code, Some(2), "{}", tls.stderr);
    // Port 9 (discard) on loopback: nothing listens.
    let dir = temp_dir("unreachable");
    let gone = mcpspec(
        &[
            "fuzz",
            "server",
            "--runs",
            "10",
            "--url",
            "http://127.0.0.1:9/mcp",
            "--report-dir",
            path(&dir),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(gone.code, Some(3), "{}", gone.stderr);
}
