//! `mcpspec proxy` with the real binary, everything on 127.0.0.1 and bounded
//! in time:
//!
//! - stdio: the reference client talks to the reference server through the
//!   proxy; `tee`s on both sides record the four byte streams, which must be
//!   equal pairwise (what the client wrote is what the server read, and the
//!   other way); no violation. A server fault is reported as the server's, a
//!   client fault as the client's, and the exit code is 1.
//! - no process is left behind after the host closes stdin, or after
//!   SIGINT (the server's helper `sleep` included).
//! - Streamable HTTP: the reference client reaches the reference HTTP server
//!   through `--listen` / `--upstream`: no violation; a server fault is the
//!   server's. The same over the legacy HTTP+SSE transport (`--sse-upstream`).

mod support;

#[path = "proxy/http.rs"]
mod http;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{mcpspec, path, still_running, temp_dir, HttpReference, BIN};

const LIMIT: Duration = Duration::from_secs(60);

/// Single-quoted for `sh`.
fn q(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// What one proxied stdio session left in `dir`.
struct Session {
    /// The reference client's run (the proxy's stderr passes through it).
    client: support::Run,
    /// The proxy's exit code.
    proxy_code: Option<i32>,
}

/// The reference client (with `client_faults`) → tee → proxy → tee →
/// reference server (with `server_faults`) → tee → proxy → tee → client.
fn proxied(dir: &Path, client_faults: &[&str], server_faults: &[&str]) -> Session {
    let f = |name: &str| q(path(&dir.join(name)));
    let mut server = format!("{} reference server", q(BIN));
    for fault in server_faults {
        server.push_str(&format!(" --fault {fault}"));
    }
    let inner = format!(
        "tee {} | {server} | tee {}",
        f("server_in"),
        f("server_out")
    );
    let host = format!(
        "tee {} | {{ {} proxy --json {} --report-dir {} -- sh -c {}; echo $? > {}; }} | tee {}",
        f("host_out"),
        q(BIN),
        f("report.json"),
        f("out"),
        q(&inner),
        f("proxy_code"),
        f("host_in"),
    );
    let mut args = vec!["reference", "client", "--timeout", "3s"];
    for fault in client_faults {
        args.extend_from_slice(&["--fault", fault]);
    }
    args.extend_from_slice(&["--", "sh", "-c", &host]);
    let client = mcpspec(&args, LIMIT);
    let proxy_code = std::fs::read_to_string(dir.join("proxy_code"))
        .ok()
        .and_then(|s| s.trim().parse().ok());
    Session { client, proxy_code }
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_default()
}

fn violations(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("mcpspec proxy: ") && l.contains(" broke "))
        .collect()
}

#[test]
fn stdio_clean_pair_relays_bytes_unchanged_and_finds_nothing() {
    let dir = temp_dir("proxy-clean");
    let run = proxied(&dir, &[], &[]);
    let err = &run.client.stderr;
    assert_eq!(run.client.code, Some(0), "{err}");
    assert!(err.contains("workflow done"), "{err}");
    // The server's stderr reaches the host through the proxy.
    assert!(err.contains("mcpspec-reference: initialized"), "{err}");
    assert_eq!(violations(err), Vec::<&str>::new(), "{err}");
    assert!(err.contains("0 violation(s)"), "{err}");
    assert_eq!(run.proxy_code, Some(0), "{err}");
    let (host_out, server_in) = (read(&dir, "host_out"), read(&dir, "server_in"));
    let (server_out, host_in) = (read(&dir, "server_out"), read(&dir, "host_in"));
    assert!(host_out.len() > 1000 && server_out.len() > 1000, "{err}");
    assert!(host_out == server_in, "client → server bytes differ");
    assert!(server_out == host_in, "server → client bytes differ");
}

#[test]
fn stdio_server_fault_is_the_servers() {
    let dir = temp_dir("proxy-server-fault");
    let run = proxied(&dir, &[], &["stringify-ids"]);
    let err = &run.client.stderr;
    let found = violations(err);
    assert!(
        found
            .iter()
            .any(|l| l.contains("server broke MUST jsonrpc.response.id-matches")),
        "{err}"
    );
    assert!(found.iter().all(|l| l.contains(": server broke ")), "{err}");
    assert_eq!(run.proxy_code, Some(1), "{err}");
    // The usual outputs: a case per side, the server's failed.
    let report: serde_json::Value =
        serde_json::from_slice(&read(&dir, "report.json")).expect("--json written");
    let outcome = |id: &str| {
        report["results"]
            .as_array()
            .and_then(|all| all.iter().find(|c| c["id"] == id))
            .map(|c| c["outcome"].clone())
    };
    assert_eq!(
        outcome("proxy/stdio/server"),
        Some("fail".into()),
        "{report}"
    );
    assert_eq!(
        outcome("proxy/stdio/client"),
        Some("pass".into()),
        "{report}"
    );
    for file in ["report.json", "junit.xml", "summary.md", "index.html"] {
        assert!(dir.join("out").join(file).is_file(), "no {file}");
    }
}

#[test]
fn stdio_client_fault_is_the_clients() {
    let dir = temp_dir("proxy-client-fault");
    let run = proxied(&dir, &["reuse-ids"], &[]);
    let err = &run.client.stderr;
    let found = violations(err);
    assert!(
        found
            .iter()
            .any(|l| l.contains("client broke MUST jsonrpc.request.id-unique")),
        "{err}"
    );
    assert!(found.iter().all(|l| l.contains(": client broke ")), "{err}");
    assert_eq!(run.proxy_code, Some(1), "{err}");
}

/// A proxy whose server is a shell that writes its pid and a helper's,
/// then runs the reference server; the test is the host (stdin piped).
struct Held {
    proxy: Child,
    pids: std::path::PathBuf,
}

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.proxy.kill();
        let _ = self.proxy.wait();
        for pid in still_running(&self.pids) {
            if let Ok(pid) = pid.parse::<i32>() {
                // SAFETY: kill(2) of a pid our own target wrote down.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

fn hold(name: &str) -> Held {
    hold_server(name, &format!("{} reference server", q(BIN)))
}

/// [`hold`] with `server` (a shell command line) as the server.
fn hold_server(name: &str, server: &str) -> Held {
    let dir = temp_dir(name);
    let pids = dir.join("pids");
    let script = format!(
        "echo $$ >> {p}; sleep 300 & echo $! >> {p}; {server}",
        p = q(path(&pids)),
    );
    let proxy = Command::new(BIN)
        .args(["proxy", "--grace", "1s", "--", "sh", "-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("proxy starts");
    let held = Held { proxy, pids };
    let until = Instant::now() + Duration::from_secs(20);
    while still_running(&held.pids).len() < 2 {
        assert!(Instant::now() < until, "the server never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    held
}

/// Waits for the proxy to exit (bounded) and for every listed pid to go.
fn all_gone(held: &mut Held) -> Option<i32> {
    let until = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(s) = held.proxy.try_wait().expect("wait") {
            break s;
        }
        assert!(Instant::now() < until, "the proxy did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    while !still_running(&held.pids).is_empty() {
        assert!(
            Instant::now() < until,
            "left behind: {:?}",
            still_running(&held.pids)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    status.code()
}

/// The host pings through the proxy and reads the answer.
fn ping(
    held: &mut Held,
) -> (
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    let mut stdin = held.proxy.stdin.take().expect("stdin");
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    stdin.write_all(ping).expect("write");
    stdin.write_all(b"\n").expect("write");
    let mut out = BufReader::new(held.proxy.stdout.take().expect("stdout"));
    let mut line = String::new();
    out.read_line(&mut line).expect("an answer");
    assert!(line.contains("\"id\":1"), "{line}");
    (stdin, out)
}

#[test]
fn nothing_is_left_behind_when_the_host_closes_stdin() {
    let mut held = hold("proxy-eof");
    let (stdin, mut out) = ping(&mut held);
    let mut line = String::new();
    drop(stdin);
    assert_eq!(all_gone(&mut held), Some(0));
    // The host saw the end of stdout.
    assert_eq!(out.read_line(&mut line).expect("eof"), 0);
}

#[test]
fn nothing_is_left_behind_after_sigint() {
    let mut held = hold("proxy-sigint");
    let _host = ping(&mut held);
    // SAFETY: kill(2) of the proxy this test started.
    unsafe {
        libc::kill(held.proxy.id() as i32, libc::SIGINT);
    }
    assert_eq!(all_gone(&mut held), Some(0));
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut held.proxy.stderr.take().expect("stderr"), &mut err);
    assert!(err.contains("stopped by SIGINT"), "{err}");
}

#[test]
fn a_server_that_exits_ends_the_proxy_and_the_host_reads_end_of_file() {
    let mut held = hold_server(
        "proxy-server-exit",
        &format!("{} reference server --fault exit-on-malformed", q(BIN)),
    );
    let mut stdin = held.proxy.stdin.take().expect("stdin");
    stdin.write_all(b"{not json\n").expect("write");
    // The host keeps its stdin open: the server's exit alone ends the run.
    let mut out = BufReader::new(held.proxy.stdout.take().expect("stdout"));
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut out, &mut rest);
    all_gone(&mut held);
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(&mut held.proxy.stderr.take().expect("stderr"), &mut err);
    assert!(err.contains("the server exited with code 1"), "{err}");
    drop(stdin);
}

#[test]
fn duration_ends_the_proxy_and_a_foreign_listen_address_is_refused() {
    let server = HttpReference::start(&[]);
    let started = Instant::now();
    let run = mcpspec(
        &[
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--upstream",
            &server.mcp(),
            "--duration",
            "1s",
        ],
        LIMIT,
    );
    assert!(run.stderr.contains("--duration elapsed"), "{}", run.stderr);
    // Nothing crossed: nothing was judged (exit 3, as for any run that judged nothing).
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert!(started.elapsed() < Duration::from_secs(20));
    let run = mcpspec(
        &[
            "proxy",
            "--listen",
            "0.0.0.0:0",
            "--upstream",
            &server.mcp(),
        ],
        LIMIT,
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("--listen-any"), "{}", run.stderr);
}

/// Reference faults the reference client's workflow brings out over stdio
/// (the others need a scenario's request: an odd version, a bad cursor).
/// `skip-initialized` is left out: a server then sending its requests
/// before `notifications/initialized` breaks a rule of its own. So is the
/// server's `early-request`: its roots/list leaves right after the
/// initialize result, while the client's `notifications/initialized` is
/// already on the other pipe; a relay sees the two directions in either
/// order (both are the server's "before" and "after" as far as it can
/// tell), so the verdict depends on timing, not on the proxy.
const SERVER_FAULTS: &[&str] = &[
    "answer-notification",
    "progress-after-response",
    "progress-not-increasing",
    "wrong-progress-token",
    "drop-jsonrpc",
    "stdout-noise",
    "embedded-newlines",
    "missing-server-info",
    "capabilities-not-object",
    "undeclared-logging",
    "exit-on-call",
    "duplicate-response",
    "tool-annotation-strings",
    "title-not-string",
    "text-content-key",
    "audio-missing-mime-type",
    "embedded-resource-flat",
    "resource-link-no-name",
    "annotation-priority-range",
    "notification-with-id",
    "template-not-rfc6570",
    "tool-schema-invalid",
    "meta-key-malformed",
    "sampling-tools-ungated",
    "elicitation-url-undeclared",
];
const CLIENT_FAULTS: &[&str] = &[
    "early-request",
    "reuse-ids",
    "cancel-initialize",
    "bad-initialize",
    "malformed-sampling",
    "elicitation-bad-action",
    "answer-notifications",
    "stdin-noise",
    "tamper-cursor",
];

#[test]
fn every_fault_the_workflow_brings_out_is_blamed_on_its_side() {
    let mut runs: Vec<(&str, &str)> = SERVER_FAULTS.iter().map(|f| ("server", *f)).collect();
    runs.extend(CLIENT_FAULTS.iter().map(|f| ("client", *f)));
    let next = std::sync::Mutex::new(runs.into_iter());
    let wrong = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| loop {
                let Some((side, fault)) = next.lock().expect("lock").next() else {
                    return;
                };
                let mut args = vec!["reference", "client", "--timeout", "5s"];
                if side == "client" {
                    args.extend_from_slice(&["--fault", fault]);
                }
                args.extend_from_slice(&["--", BIN, "proxy", "--", BIN, "reference", "server"]);
                if side == "server" {
                    args.extend_from_slice(&["--fault", fault]);
                }
                let run = mcpspec(&args, LIMIT);
                let found = violations(&run.stderr);
                let blamed = format!(": {side} broke ");
                if found.is_empty() || !found.iter().all(|l| l.contains(&blamed)) {
                    wrong
                        .lock()
                        .expect("lock")
                        .push(format!("{side} fault {fault}: {found:#?}"));
                }
            });
        }
    });
    let wrong = wrong.into_inner().expect("lock");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_last_line_without_newline_is_relayed_as_is_and_blamed_on_the_server() {
    let line = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#;
    let server = format!("printf '%s' {}", q(line));
    let run = mcpspec(&["proxy", "--", "sh", "-c", &server], LIMIT);
    assert_eq!(run.stdout, line);
    let found = violations(&run.stderr);
    assert!(
        found
            .iter()
            .any(|l| l.contains("server broke MUST stdio.newline-delimited")),
        "{}",
        run.stderr
    );
}
