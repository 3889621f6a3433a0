//! A real MCP server under `mcpspec server`: FastMCP from the Python SDK 1.x
//! (`real-servers/fastmcp-server.py`, over Streamable HTTP on 127.0.0.1).
//! `.ci/run` installs `mcp==1.30.0` into `tests/real-servers/.venv`;
//! elsewhere the test is skipped with a note when that venv is missing,
//! unless `CI=true`, where a missing install fails it.
//!
//! The run must exit 0 against `real-servers/fastmcp.expected.yaml`: the
//! genuine deviations FastMCP 1.x shows, one line each with its evidence and
//! spec basis. A new failure, or a listed one that no longer happens, fails
//! the test; so does a SHOULD-level warning that is not listed. The server
//! speaks only handshake-era versions and refuses `server/discover` with
//! HTTP 400 and an error whose id is its own marker, `"server-error"`: the
//! probe must call 2026-07-28 not offered, and its cases not applicable.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

mod support;

use serde_json::Value;
use support::{first_line, mcpspec, path, present, temp_dir};

/// The `mcp` release the venv must hold: the expectations were read off it.
const MCP_VERSION: &str = "1.30.0";

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-servers")
}

/// The FastMCP server, killed when dropped (a panicking test included); it
/// also exits by itself when its standard input, held here, closes.
struct FastMcp {
    child: Child,
    url: String,
}

impl FastMcp {
    fn start(python: &Path) -> FastMcp {
        let mut child = Command::new(python)
            .arg(dir().join("fastmcp-server.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the FastMCP server starts");
        let line = first_line(&mut child, Duration::from_secs(30));
        let mut server = FastMcp {
            child,
            url: String::new(),
        };
        match line
            .strip_prefix("listening on ")
            .map(str::trim)
            .filter(|u| u.starts_with("http://127.0.0.1:") && u.ends_with("/mcp"))
        {
            Some(url) => server.url = url.to_owned(),
            None => panic!("the FastMCP server's first line was {line:?}"),
        }
        server
    }
}

impl Drop for FastMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `mcp` version installed in the venv.
fn installed_mcp(python: &Path) -> String {
    let out = Command::new(python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .expect("the venv's python runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

#[test]
fn fastmcp_1x_over_streamable_http() {
    let python = dir().join(".venv/bin/python");
    if !present(&python) {
        return;
    }
    assert_eq!(
        installed_mcp(&python),
        MCP_VERSION,
        "{} must hold mcp=={MCP_VERSION}, as .ci/run installs it",
        python.display()
    );
    let server = FastMcp::start(&python);
    let out = temp_dir("fastmcp");
    let (json, reports) = (out.join("report.json"), out.join("reports"));
    let expected = dir().join("fastmcp.expected.yaml");
    let args = [
        "server",
        "--url",
        &server.url,
        "--jobs",
        "16",
        "--no-progress",
        "--expected-failures",
        path(&expected),
        "--json",
        path(&json),
        "--report-dir",
        path(&reports),
    ];
    let run = mcpspec(&args, Duration::from_secs(240));
    let context = format!(
        "mcpspec {}\n(transcripts in {})\nstdout:\n{}\nstderr:\n{}",
        args.join(" "),
        reports.display(),
        run.stdout,
        run.stderr
    );
    assert_eq!(run.code, Some(0), "{context}");

    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&json).expect("report.json"))
        .expect("report.json is JSON");
    let probes = doc["probes"].as_array().expect("probes array");
    let offered = |v: &str| {
        probes
            .iter()
            .find(|p| p["version"] == v)
            .unwrap_or_else(|| panic!("no probe for {v}: {probes:?}"))["supported"]
            .as_bool()
    };
    for v in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        assert_eq!(offered(v), Some(true), "{v}: {probes:?}");
    }
    assert_eq!(offered("2026-07-28"), Some(false), "{probes:?}");

    let results = doc["results"].as_array().expect("results array");
    let at_2026: Vec<&Value> = results
        .iter()
        .filter(|r| r["version"] == "2026-07-28")
        .collect();
    assert!(!at_2026.is_empty(), "no case at 2026-07-28 was planned");
    for r in at_2026 {
        assert_eq!(r["outcome"], "not_applicable", "{}", r["id"]);
    }
    // Warnings count too: each must be listed, but for the timing-dependent.
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
