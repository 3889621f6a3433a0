//! `mcpspec reference client` against the reference server: over stdio
//! (the server started as a child) and over Streamable HTTP and legacy
//! HTTP+SSE (the server listening on 127.0.0.1); its usage errors and
//! `--list-faults`. Every process is bounded in time and stopped.

mod support;

use std::time::Duration;

use support::{mcpspec, HttpReference, Run, BIN};

const LIMIT: Duration = Duration::from_secs(60);

fn client(args: &[&str]) -> Run {
    let mut all = vec!["reference", "client"];
    all.extend_from_slice(args);
    mcpspec(&all, LIMIT)
}

fn shows(run: &Run, needle: &str) -> bool {
    run.stderr.contains(needle)
}

#[test]
fn clean_client_completes_its_workflow_against_the_reference_server_over_stdio() {
    let run = client(&["--timeout", "5s", "--", BIN, "reference", "server"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for needle in [
        "initialized: protocol version 2025-11-25",
        "tools/list page 3",
        "tools/call echo: ok",
        "tools/call fail: a tool error",
        "resources/read mcpspec://static/1",
        "resources/subscribe",
        "resources/templates/list",
        "prompts/get greet",
        "logging/setLevel info: ok",
        "workflow done: 5 tool(s) listed, 5 called",
        "0 error answer(s), 0 unanswered",
    ] {
        assert!(shows(&run, needle), "no {needle:?} in\n{}", run.stderr);
    }
    // The server's own stderr is passed through.
    assert!(
        shows(&run, "mcpspec-reference: initialized"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_older_version_is_offered_and_negotiated() {
    let run = client(&[
        "--spec-version",
        "2024-11-05",
        "--",
        BIN,
        "reference",
        "server",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        shows(&run, "initialized: protocol version 2024-11-05"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_fault_changes_the_traffic_the_server_sees() {
    // The reference server refuses the tampered cursors (-32602); the client goes on.
    let run = client(&["--fault", "tamper-cursor", "--", BIN, "reference", "server"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        shows(&run, "tools/list page 2: error -32602"),
        "{}",
        run.stderr
    );
}

#[test]
fn clean_client_over_streamable_http_and_legacy_sse() {
    let server = HttpReference::start(&[]);
    let run = client(&["--timeout", "5s", "--url", &server.mcp()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        shows(&run, "workflow done: 5 tool(s) listed, 5 called"),
        "{}",
        run.stderr
    );
    assert!(
        shows(&run, "0 error answer(s), 0 unanswered"),
        "{}",
        run.stderr
    );

    let sse = server.sse();
    let run = client(&[
        "--spec-version",
        "2024-11-05",
        "--timeout",
        "5s",
        "--sse-url",
        &sse,
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        shows(&run, "initialized: protocol version 2024-11-05"),
        "{}",
        run.stderr
    );
    assert!(
        shows(&run, "0 error answer(s), 0 unanswered"),
        "{}",
        run.stderr
    );
}

#[test]
fn usage_errors_exit_2_and_name_the_valid_faults() {
    let run = client(&["--fault", "bad-name", "--", BIN, "reference", "server"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(shows(&run, "skip-initialized"), "{}", run.stderr);

    let run = client(&[]);
    assert_eq!(run.code, Some(2), "no server: {}", run.stderr);
    let run = client(&[
        "--spec-version",
        "2026-07-28",
        "--",
        BIN,
        "reference",
        "server",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let run = client(&["--url", "https://127.0.0.1:1/mcp"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

#[test]
fn an_unreachable_server_exits_3() {
    let run = client(&["--", "/nonexistent/mcp-server"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    // Port 1 on loopback: nothing listens there.
    let run = client(&["--url", "http://127.0.0.1:1/mcp"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let run = client(&["--", "sh", "-c", "exit 0"]);
    assert_eq!(run.code, Some(3), "{}", run.stderr);
}

#[test]
fn list_faults_names_each_fault_and_its_requirement() {
    let run = client(&["--list-faults"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout.lines().count(), 19, "{}", run.stdout);
    assert!(run
        .stdout
        .lines()
        .any(|l| l.starts_with("reuse-ids ") && l.ends_with("(jsonrpc.request.id-unique)")));
}
