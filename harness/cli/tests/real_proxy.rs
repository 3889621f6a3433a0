//! Real MCP clients and a real server through `mcpspec proxy`: the
//! TypeScript SDK and Python SDK hosts and the Inspector CLI
//! (`real-clients/`, installed by `.ci/run`) relayed over stdio to the
//! built-in reference server, and the
//! TypeScript host over Streamable HTTP to the TypeScript SDK's example
//! server (`simpleStreamableHttp.js`), everything on 127.0.0.1. Each host's
//! workflow must complete through the proxy, and the proxy's verdict on
//! both sides must be clean: these implementations pass what the proxy
//! judges (the reference by construction; the hosts and the example as
//! their own suites found), so any violation is a finding to explain.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

mod support;

use serde_json::Value;
use support::{present, temp_dir, BIN};

fn clients() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-clients")
}

/// Runs `argv` to its end within `limit`: exit code and stdout.
fn run(argv: &[&str], limit: Duration) -> (Option<i32>, String) {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = temp_dir(&format!("host-{}", RUNS.fetch_add(1, Ordering::Relaxed)));
    let out = dir.join("stdout");
    let mut child = Command::new(argv[0])
        .args(&argv[1..])
        .current_dir(clients())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(Stdio::null())
        .spawn()
        .expect("the host starts");
    let deadline = Instant::now() + limit;
    let code = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (code, std::fs::read_to_string(&out).unwrap_or_default())
}

/// The proxy's report: both cases (client and server) passed.
fn both_sides_clean(json: &Path, context: &str) {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(json).unwrap_or_else(|e| panic!("no report ({e}): {context}")),
    )
    .expect("report.json is JSON");
    let results = doc["results"].as_array().expect("results");
    let sides: Vec<(&str, &str)> = results
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default(),
                r["outcome"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(sides.len(), 2, "{sides:?}\n{context}");
    for (id, outcome) in &sides {
        assert_eq!(*outcome, "pass", "{id}: {doc}\n{context}");
    }
}

/// A host started over stdio with `mcpspec proxy -- mcpspec reference server`
/// as its server command.
fn host_through_stdio_proxy(name: &str, host: &[&str]) {
    let json = temp_dir(name).join("proxy.json");
    let json_text = json.to_string_lossy().into_owned();
    let mut argv: Vec<&str> = host.to_vec();
    argv.extend([
        "--",
        BIN,
        "proxy",
        "--quiet",
        "--json",
        &json_text,
        "--",
        BIN,
        "reference",
        "server",
    ]);
    let (code, out) = run(&argv, Duration::from_secs(120));
    let context = format!("{}\n{out}", argv.join(" "));
    assert_eq!(code, Some(0), "the host's workflow failed: {context}");
    assert!(out.contains("closed: ok"), "{context}");
    both_sides_clean(&json, &context);
}

#[test]
fn typescript_sdk_host_through_the_stdio_proxy() {
    if present(&clients().join("node_modules/@modelcontextprotocol/sdk/package.json")) {
        host_through_stdio_proxy("proxy-ts", &["node", "ts-client.mjs"]);
    }
}

#[test]
fn python_sdk_host_through_the_stdio_proxy() {
    let python = clients().join(".venv/bin/python");
    if present(&python) {
        host_through_stdio_proxy("proxy-py", &[&python.to_string_lossy(), "py-client.py"]);
    }
}

#[test]
fn inspector_cli_through_the_stdio_proxy() {
    let cli = clients().join("node_modules/@modelcontextprotocol/inspector-cli/build/index.js");
    if !present(&cli) {
        return;
    }
    let json = temp_dir("proxy-inspector").join("proxy.json");
    // The Inspector takes `--` for itself: the proxy's own `--` goes through
    // a shell.
    let server = format!(
        "exec '{BIN}' proxy --quiet --json '{}' -- '{BIN}' reference server",
        json.display()
    );
    let argv = [
        "node",
        &cli.to_string_lossy(),
        "/bin/sh",
        "-c",
        &server,
        "--method",
        "tools/list",
    ];
    let (code, out) = run(&argv, Duration::from_secs(120));
    let context = format!("{}\n{out}", argv.join(" "));
    assert_eq!(code, Some(0), "the Inspector failed: {context}");
    assert!(out.contains("\"tools\""), "{context}");
    both_sides_clean(&json, &context);
}

/// A free port on 127.0.0.1.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port on 127.0.0.1")
}

/// A child killed when dropped (a panicking test included).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing listens on 127.0.0.1:{port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn typescript_sdk_host_and_example_server_through_the_http_proxy() {
    let sdk = clients().join("node_modules/@modelcontextprotocol/sdk");
    if !present(&sdk.join("package.json")) {
        return;
    }
    let (upstream, listen) = (free_port(), free_port());
    let loopback = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/loopback.cjs");
    let _server = Killed(
        Command::new("node")
            .arg(sdk.join("dist/esm/examples/server/simpleStreamableHttp.js"))
            .env("MCP_PORT", upstream.to_string())
            .env("NODE_OPTIONS", format!("--require {}", loopback.display()))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node starts the example server"),
    );
    wait_listening(upstream);
    let json = temp_dir("proxy-http").join("proxy.json");
    let mut proxy = Killed(
        Command::new(BIN)
            .args(["proxy", "--quiet", "--listen"])
            .arg(format!("127.0.0.1:{listen}"))
            .arg("--upstream")
            .arg(format!("http://127.0.0.1:{upstream}/mcp"))
            .arg("--json")
            .arg(&json)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the proxy starts"),
    );
    wait_listening(listen);
    let url = format!("http://127.0.0.1:{listen}/mcp");
    let (code, out) = run(
        &["node", "ts-client.mjs", "--delete-session", "--url", &url],
        Duration::from_secs(60),
    );
    let context = format!("ts-client --url {url}\n{out}");
    assert_eq!(code, Some(0), "the host's workflow failed: {context}");
    // Ctrl-C ends the proxy, which then writes its verdict.
    let pid = proxy.0.id().to_string();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while proxy.0.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the proxy did not end on SIGINT");
        std::thread::sleep(Duration::from_millis(50));
    }
    both_sides_clean(&json, &context);
}
