//! `mcpspec fuzz server --url / --sse-url` and `mcpspec replay` against the
//! built-in reference server served over HTTP on 127.0.0.1: the clean
//! server yields nothing over either transport, a server that answers
//! notifications and one that fails on malformed input are found, with
//! reproducers that replay over the transport they record. Fixed seeds,
//! small budgets; every process is bounded in time and killed at the end.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

/// A reference server over HTTP, killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(faults: &[&str]) -> Server {
        let mut args = vec!["reference", "server", "--http", "127.0.0.1:0"];
        for f in faults {
            args.extend_from_slice(&["--fault", f]);
        }
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("reference server starts");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
        let base = line
            .strip_prefix("listening on ")
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned);
        let mut server = Server {
            child,
            base: String::new(),
        };
        match base {
            Some(b) if b.starts_with("http://127.0.0.1:") => server.base = b,
            _ => panic!("unexpected first line {line:?}"),
        }
        server
    }

    fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    fn sse(&self) -> String {
        format!("{}/sse", self.base)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the binary, killing it if it has not finished after `limit`.
fn mcpspec(args: &[&str], limit: Duration) -> Run {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let dir = temp_dir(&format!("out-{}", RUNS.fetch_add(1, Ordering::Relaxed)));
    let (out, err) = (dir.join("stdout"), dir.join("stderr"));
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .spawn()
        .expect("mcpspec runs");
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.and_then(|s| s.code()),
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-fuzz-http-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Fuzzes `flag URL`; returns the run and the JSON summary.
fn fuzz(name: &str, flag: &str, url: &str, extra: &[&str]) -> (Run, Value) {
    let dir = temp_dir(name);
    let json = dir.join("summary.json");
    let reports = dir.join("reports");
    let mut args = vec![
        "fuzz",
        "server",
        "--seed",
        "1",
        flag,
        url,
        "--json",
        path(&json),
        "--report-dir",
        path(&reports),
    ];
    args.extend_from_slice(extra);
    let run = mcpspec(&args, Duration::from_secs(120));
    let doc = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    (run, doc)
}

fn findings(doc: &Value) -> &Vec<Value> {
    doc["findings"].as_array().expect("findings array")
}

#[test]
fn clean_reference_server_yields_no_findings_over_either_http_transport() {
    let server = Server::start(&[]);
    for (flag, url) in [("--url", server.mcp()), ("--sse-url", server.sse())] {
        let (run, doc) = fuzz("clean", flag, &url, &["--runs", "1500"]);
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
    let (run, doc) = fuzz("notify", "--url", &faulty.mcp(), &["--runs", "100"]);
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
    let (run, doc) = fuzz("eom-http", "--url", &faulty.mcp(), &["--runs", "300"]);
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
    let (run, doc) = fuzz("eom-sse", "--sse-url", &faulty.sse(), &["--runs", "300"]);
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
