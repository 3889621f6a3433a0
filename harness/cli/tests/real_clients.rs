//! Real MCP clients under `mcpspec client`: the TypeScript SDK (a small host,
//! `real-clients/ts-client.mjs`, over stdio and Streamable HTTP), the MCP
//! Inspector CLI, and the Python SDK (`real-clients/py-client.py`, over
//! Streamable HTTP). `.ci/run` installs them (`npm ci` in
//! `tests/real-clients`, and `mcp` into `tests/real-clients/.venv`);
//! elsewhere a test whose client is missing is skipped with a note, unless
//! `CI=true`, where a missing install fails it.
//!
//! Each run must exit 0 against the client's baseline,
//! `real-clients/<client>.expected.yaml`: the genuine deviations each client
//! shows, one line each with its spec basis. A new failure, or a listed one
//! that no longer happens, fails the test.
//!
//! The two SDK hosts also run with `--auth` (their SDK's OAuth client
//! support) through the `client/auth` scenarios, at the version each asks
//! for and counter-offered 2025-06-18: every authorization flow the harness
//! scripts, judged, against `real-clients/<client>-oauth.expected.yaml`; at
//! least one case must pass at each version (a run of cases all not
//! applicable judged nothing).

use std::path::{Path, PathBuf};
use std::time::Duration;

mod support;

use support::{mcpspec, present};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-clients")
}

/// Whether the node clients are installed; `false` means skip (never under CI).
fn installed() -> bool {
    present(&dir().join("node_modules/@modelcontextprotocol/sdk/package.json"))
}

/// `mcpspec client --expected-failures <baseline> -- client…` must exit 0.
fn passes_against_baseline(baseline: &str, client: &[&str]) {
    passes_against_baseline_with(baseline, &[], client);
}

/// The same, with `options` before `--`.
fn passes_against_baseline_with(baseline: &str, options: &[&str], client: &[&str]) {
    let expected = dir().join(baseline);
    let expected = expected.to_string_lossy();
    let mut args = vec![
        "client",
        "--timeout",
        "5s",
        "--expected-failures",
        &expected,
    ];
    args.extend_from_slice(options);
    args.push("--");
    args.extend_from_slice(client);
    let run = mcpspec(&args, Duration::from_secs(300));
    assert_eq!(
        run.code,
        Some(0),
        "mcpspec {}\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        run.stdout,
        run.stderr
    );
}

fn ts_client() -> String {
    dir().join("ts-client.mjs").to_string_lossy().into_owned()
}

#[test]
fn typescript_sdk_host_over_stdio() {
    if installed() {
        passes_against_baseline(
            "ts-sdk.expected.yaml",
            &["node", &ts_client(), "--", "{server}"],
        );
    }
}

#[test]
fn typescript_sdk_host_over_streamable_http() {
    if installed() {
        passes_against_baseline(
            "ts-sdk.expected.yaml",
            &["node", &ts_client(), "--url", "{url}"],
        );
    }
}

#[test]
fn inspector_cli_lists_tools() {
    if installed() {
        let cli = dir()
            .join("node_modules/@modelcontextprotocol/inspector-cli/build/index.js")
            .to_string_lossy()
            .into_owned();
        passes_against_baseline(
            "inspector-cli.expected.yaml",
            &["node", &cli, "{server}", "--method", "tools/list"],
        );
    }
}

#[test]
fn python_sdk_host_over_streamable_http() {
    let python = dir().join(".venv/bin/python");
    if present(&python) {
        let script = dir().join("py-client.py").to_string_lossy().into_owned();
        passes_against_baseline(
            "py-sdk.expected.yaml",
            &[&python.to_string_lossy(), &script, "--url", "{url}"],
        );
    }
}

/// The `client/auth` scenarios, at the version the client asks for and at
/// 2025-06-18, against `baseline`; each run passes at least one case.
fn authorizes_against_baseline(name: &str, baseline: &str, client: &[String]) {
    let client: Vec<&str> = client.iter().map(String::as_str).collect();
    for version in [None, Some("2025-06-18")] {
        let out = support::temp_dir(&format!("{name}-oauth-{}", version.unwrap_or("asked")));
        let json = out.join("report.json");
        let json = json.to_string_lossy();
        let mut options = vec!["--filter", "client/auth/", "--json", &json];
        if let Some(v) = version {
            options.extend(["--spec-version", v]);
        }
        passes_against_baseline_with(baseline, &options, &client);
        let doc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&*json).expect("report.json"))
                .expect("report.json is JSON");
        let passed = doc["results"]
            .as_array()
            .expect("results")
            .iter()
            .filter(|r| r["outcome"] == "pass")
            .count();
        assert!(
            passed > 0,
            "{name} at {version:?}: no authorization case passed: {doc}"
        );
    }
}

/// A host's command line with its SDK's OAuth support on: a client ID
/// metadata document URL of its own, the static credentials of a case that
/// has them (`{client_id}`, `{client_secret}`), the harness's endpoint.
fn oauth_host(host: &[&str], name: &str) -> Vec<String> {
    let mut argv: Vec<String> = host.iter().map(|s| (*s).to_owned()).collect();
    argv.extend(
        [
            "--auth",
            "--client-metadata-url",
            &format!("https://client.mcpspec.invalid/{name}/metadata.json"),
            "--client-id",
            "{client_id}",
            "--client-secret",
            "{client_secret}",
            "--url",
            "{url}",
        ]
        .map(str::to_owned),
    );
    argv
}

#[test]
fn typescript_sdk_host_authorizes() {
    if installed() {
        authorizes_against_baseline(
            "ts-sdk",
            "ts-sdk-oauth.expected.yaml",
            &oauth_host(&["node", &ts_client()], "ts-client"),
        );
    }
}

#[test]
fn python_sdk_host_authorizes() {
    let python = dir().join(".venv/bin/python");
    if present(&python) {
        let script = dir().join("py-client.py").to_string_lossy().into_owned();
        authorizes_against_baseline(
            "py-sdk",
            "py-sdk-oauth.expected.yaml",
            &oauth_host(&[&python.to_string_lossy(), &script], "py-client"),
        );
    }
}
