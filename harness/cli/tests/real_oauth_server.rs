//! A real OAuth-protected MCP server under `mcpspec server`: the TypeScript
//! SDK's example server (`simpleStreamableHttp.js --oauth --oauth-strict`,
//! from the `@modelcontextprotocol/sdk` that `.ci/run` installs into
//! `tests/real-clients/node_modules`), with its demo authorization server on
//! a second port, both bound to 127.0.0.1 (`bench/loopback.cjs`).
//!
//! The example names itself `http://localhost:PORT/mcp` in its metadata, so
//! the run targets that URL. The harness gets a token as a public client
//! would (`support::oauth`: registration, PKCE S256, `resource`) and runs the
//! authorization scenarios with `--auth-token`; the run must exit 0 against
//! `real-servers/ts-sdk-oauth.expected.yaml` (its genuine deviations, one
//! line each with evidence and spec basis), every case listed or passed or
//! not applicable, and the cases a black box can judge on it must have been
//! judged (not all not applicable).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod support;

use serde_json::Value;
use support::{mcpspec, path, present, temp_dir};

fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// A free port on 127.0.0.1 (released at once; the server binds it next).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// The example server, killed when dropped (a panicking test included).
struct Example(Child);

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until `port` on 127.0.0.1 accepts connections, at most `within`.
fn wait_listening(port: u16, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn ts_sdk_oauth_example_server() {
    let sdk = tests_dir().join("real-clients/node_modules/@modelcontextprotocol/sdk");
    if !present(&sdk.join("package.json")) {
        return;
    }
    let (mcp_port, auth_port) = (free_port(), free_port());
    let loopback = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/loopback.cjs");
    let child = Command::new("node")
        .arg(sdk.join("dist/esm/examples/server/simpleStreamableHttp.js"))
        .args(["--oauth", "--oauth-strict"])
        .env("MCP_PORT", mcp_port.to_string())
        .env("MCP_AUTH_PORT", auth_port.to_string())
        .env("NODE_OPTIONS", format!("--require {}", loopback.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("node starts the example server");
    let _server = Example(child);
    for port in [mcp_port, auth_port] {
        assert!(
            wait_listening(port, Duration::from_secs(30)),
            "the example server did not listen on 127.0.0.1:{port} within 30 s"
        );
    }
    let url = format!("http://localhost:{mcp_port}/mcp");
    let token = support::oauth::token_for(&format!("http://localhost:{auth_port}"), &url);

    let out = temp_dir("ts-sdk-oauth");
    let (json, reports) = (out.join("report.json"), out.join("reports"));
    let expected = tests_dir().join("real-servers/ts-sdk-oauth.expected.yaml");
    let args = [
        "server",
        "--url",
        &url,
        "--auth-token",
        &token,
        "--filter",
        "server/auth/",
        "--no-progress",
        "--expected-failures",
        path(&expected),
        "--json",
        path(&json),
        "--report-dir",
        path(&reports),
    ];
    let run = mcpspec(&args, Duration::from_secs(120));
    let context = format!(
        "(transcripts in {})\nstdout:\n{}\nstderr:\n{}",
        reports.display(),
        run.stdout,
        run.stderr
    );
    assert_eq!(run.code, Some(0), "{context}");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("report.json"))
        .expect("report.json is JSON");
    let results = doc["results"].as_array().expect("results array");
    let outcome = |id: &str| {
        results
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no case {id}"))["outcome"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    // What a black box can judge on this server was judged: the metadata
    // documents, the challenge, the authorize endpoint's redirect checks.
    for id in [
        "server/auth/metadata/protected-resource@2025-11-25",
        "server/auth/metadata/authorization-server@2025-11-25",
        "server/auth/unauthorized/missing-token@2025-06-18",
        "server/auth/authorization-server/redirect-uri-exact@2025-11-25",
        "server/auth/authorization-server/unregistered-redirect@2025-11-25",
    ] {
        assert_eq!(outcome(id), "pass", "{id}\n{context}");
    }
    // The demo issues no refresh token: rotation cannot be judged.
    assert_eq!(
        outcome("server/auth/authorization-server/refresh-rotation@2025-11-25"),
        "not_applicable"
    );
    let unlisted: Vec<&Value> = results
        .iter()
        .filter(|r| r["outcome"] != "pass" && r["outcome"] != "not_applicable")
        .filter(|r| r["expectation"]["status"] != "expected_failure")
        .map(|r| &r["id"])
        .collect();
    assert!(
        unlisted.is_empty(),
        "not in the expectations: {unlisted:?}\n{context}"
    );
}
