//! `mcpspec reference client` against the reference server: over stdio
//! (the server started as a child) and over Streamable HTTP and legacy
//! HTTP+SSE (the server listening on 127.0.0.1), at the handshake versions
//! and statelessly at 2026-07-28; its HTTP faults; its usage errors and
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

/// The client's stderr shows `needle`.
#[track_caller]
fn assert_shows(run: &Run, needle: &str) {
    assert!(shows(run, needle), "no {needle:?} in\n{}", run.stderr);
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
        // The reference's own five tools and the conformance fixture's 13;
        // test_sampling asks this client mid-call, which answers. The 19th,
        // 2025-11-25's task-only `background`, is listed but not called:
        // this client does not use tasks.
        "tools/call test_sampling: ok",
        "workflow done: 19 tool(s) listed, 18 called",
        "0 error answer(s), 0 unanswered",
    ] {
        assert_shows(&run, needle);
    }
    // The server's own stderr is passed through.
    assert_shows(&run, "mcpspec-reference: initialized");
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
    assert_shows(&run, "initialized: protocol version 2024-11-05");
}

#[test]
fn a_fault_changes_the_traffic_the_server_sees() {
    // The reference server refuses the tampered cursors (-32602); the client goes on.
    let run = client(&["--fault", "tamper-cursor", "--", BIN, "reference", "server"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_shows(&run, "tools/list page 2: error -32602");
}

#[test]
fn clean_client_over_streamable_http_and_legacy_sse() {
    let server = HttpReference::start(&[]);
    let run = client(&["--timeout", "5s", "--url", &server.mcp()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_shows(&run, "tools/call test_elicitation: ok");
    assert_shows(&run, "workflow done: 19 tool(s) listed, 18 called");
    assert_shows(&run, "0 error answer(s), 0 unanswered");

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
    assert_shows(&run, "initialized: protocol version 2024-11-05");
    assert_shows(&run, "0 error answer(s), 0 unanswered");
}

#[test]
fn usage_errors_exit_2_and_name_the_valid_faults() {
    let run = client(&["--fault", "bad-name", "--", BIN, "reference", "server"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_shows(&run, "skip-initialized");

    let run = client(&[]);
    assert_eq!(run.code, Some(2), "no server: {}", run.stderr);
    let run = client(&["--no-discover", "--", BIN, "reference", "server"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_shows(&run, "2026-07-28 only");
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
fn list_faults_names_each_fault_its_transports_and_requirement() {
    let run = client(&["--list-faults"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // One line per fault of the table (whose own tests check its order).
    let faults = mcpspec_reference::client::FAULTS.len();
    assert_eq!(run.stdout.lines().count(), faults, "{}", run.stdout);
    // name  LEVEL  transports  description (requirement)
    let row = |name: &str| -> Vec<String> {
        let line = run
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_default();
        line.split_whitespace().map(str::to_owned).collect()
    };
    let reuse = row("reuse-ids");
    assert_eq!(reuse[1..3], ["MUST", "stdio,http,sse"], "{reuse:?}");
    assert_eq!(
        reuse.last().map(String::as_str),
        Some("(jsonrpc.request.id-unique)")
    );
    for name in [
        "http-bad-accept",
        "http-bad-get-accept",
        "http-no-session-echo",
        "http-no-version-header",
        "http-no-routing-headers",
        "http-no-param-headers",
        "http-plain-param-headers",
        "http-keeps-invalid-header-tools",
        "header-meta-mismatch",
    ] {
        assert_eq!(row(name)[1..3], ["MUST", "http"], "{name}");
    }
    assert_eq!(
        row("fallback-after-discover")[1..3],
        ["SHOULD", "stdio,http,sse"]
    );
}

#[test]
fn at_2026_07_28_the_client_runs_statelessly_over_stdio() {
    let run = client(&[
        "--spec-version",
        "2026-07-28",
        "--timeout",
        "5s",
        "--",
        BIN,
        "reference",
        "server",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for needle in [
        "server/discover sent",
        "running statelessly: no initialize",
        "tools/call roots: input_required (roots/list)",
        "tools/call roots: ok (retry 1",
        // Its own five, nine of the conformance fixture (none asks the
        // client mid-call at 2026-07-28), region_echo, roots and the eight
        // input-required fixtures.
        "workflow done: 24 tool(s) listed, 24 called",
        "0 error answer(s), 0 unanswered, 0 skipped",
    ] {
        assert_shows(&run, needle);
    }
    for absent in ["initialize sent", "ping", "logging/setLevel", "subscribe"] {
        assert!(!shows(&run, absent), "{absent:?} in\n{}", run.stderr);
    }

    // Discovery is optional for clients: the workflow starts at once.
    let run = client(&[
        "--spec-version",
        "2026-07-28",
        "--no-discover",
        "--",
        BIN,
        "reference",
        "server",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!shows(&run, "server/discover sent"), "{}", run.stderr);
    assert_shows(&run, "24 tool(s) listed, 24 called");
}

#[test]
fn at_2026_07_28_the_client_runs_statelessly_over_streamable_http() {
    let server = HttpReference::start(&[]);
    let url = server.mcp();
    let stateless = ["--spec-version", "2026-07-28", "--timeout", "5s", "--url"];
    let run = client(&[&stateless[..], &[url.as_str()]].concat());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for needle in [
        "running statelessly: no initialize",
        "tools/call roots: ok (retry 1",
        "0 error answer(s), 0 unanswered, 0 skipped",
    ] {
        assert_shows(&run, needle);
    }
    // No HTTP exchange failed: the headers agreed with each request's _meta.
    assert!(!shows(&run, "HTTP POST"), "{}", run.stderr);

    // The fault's header disagrees with _meta after discovery: the server
    // answers every later request -32020 (400), the session still ends well.
    let run = client(
        &[
            &["--fault", "header-meta-mismatch"],
            &stateless[..],
            &[url.as_str()],
        ]
        .concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        shows(&run, "running statelessly") && shows(&run, "HTTP POST /mcp → 400"),
        "{}",
        run.stderr
    );
    assert_shows(&run, "error -32020");

    // A fallback to initialize drops the stateless headers: the handshake
    // session runs over HTTP as any other.
    let run = client(
        &[
            &["--fault", "fallback-after-discover"],
            &stateless[..],
            &[url.as_str()],
        ]
        .concat(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_shows(&run, "initialized: protocol version 2025-11-25");
    assert_shows(&run, "0 error answer(s), 0 unanswered");
}

#[test]
fn http_faults_reach_the_wire_and_are_ignored_over_stdio() {
    let server = HttpReference::start(&[]);
    let url = server.mcp();
    // The reference server refuses a POST whose Accept lacks
    // text/event-stream (406) and a GET stream that does not ask for it.
    for (fault, refusal) in [
        ("http-bad-accept", "HTTP POST /mcp → 406"),
        ("http-bad-get-accept", "HTTP GET /mcp → 406"),
        ("http-no-session-echo", "HTTP POST /mcp → 400"),
    ] {
        let run = client(&["--fault", fault, "--timeout", "1s", "--url", &url]);
        assert_eq!(run.code, Some(0), "{fault}: {}", run.stderr);
        assert!(shows(&run, "initialized:"), "{fault}: {}", run.stderr);
        assert!(shows(&run, refusal), "{fault}: {}", run.stderr);
    }
    let run = client(&[
        "--fault",
        "http-bad-accept",
        "--",
        BIN,
        "reference",
        "server",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        shows(
            &run,
            "breaks a rule of Streamable HTTP only; ignored over stdio"
        ),
        "{}",
        run.stderr
    );
}
