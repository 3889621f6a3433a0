//! What several CLI test binaries share: running the real `mcpspec` binary
//! with a deadline, scratch directories, and the reference server over HTTP
//! on 127.0.0.1 (stopped when dropped). Each test file uses part of it.
#![allow(dead_code)]

pub mod oauth;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_mcpspec");

/// How a run of the binary ended: `code` is `None` when it was killed at
/// its deadline (or by a signal).
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the binary, killing it if it has not finished after `limit`.
pub fn mcpspec(args: &[&str], limit: Duration) -> Run {
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

/// Runs `work` on each of `items`, `workers` at a time, and returns the
/// results in the items' order. A worker takes the next item as soon as it
/// is done with one, so no batch waits for its slowest member (the fault
/// runs of the self-validation tests differ in length by several times).
pub fn each_parallel<T: Send, R: Send>(
    items: Vec<T>,
    workers: usize,
    work: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    let queue = std::sync::Mutex::new(items.into_iter().enumerate());
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| loop {
                // The lock is held only to take the next item, never across `work`.
                let next = queue.lock().expect("no worker panics holding it").next();
                let Some((at, item)) = next else { break };
                let r = work(item);
                done.lock()
                    .expect("no worker panics holding it")
                    .push((at, r));
            });
        }
    });
    let mut done = done.into_inner().expect("every worker has ended");
    done.sort_by_key(|(at, _)| *at);
    done.into_iter().map(|(_, r)| r).collect()
}

/// A fresh scratch directory, unique to this test process.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcpspec-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// The pids listed in `pids_file` (one per line, written by a test's target)
/// whose processes still run (zombies count as gone).
pub fn still_running(pids_file: &Path) -> Vec<String> {
    let list = std::fs::read_to_string(pids_file).unwrap_or_default();
    list.lines()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
                !s.split(") ")
                    .nth(1)
                    .is_some_and(|rest| rest.starts_with('Z'))
            })
        })
        .map(str::to_owned)
        .collect()
}

/// `mcpspec fuzz ROLE --seed 1 --json … --report-dir … ARGS` (in a scratch
/// directory named `name`) with a deadline: the run, its JSON summary (null
/// when none was written) and the scratch directory.
pub fn fuzz(
    name: &str,
    role: &str,
    args: &[&str],
    limit: Duration,
) -> (Run, serde_json::Value, PathBuf) {
    let dir = temp_dir(name);
    let json = dir.join("summary.json");
    let reports = dir.join("reports");
    let mut all = vec![
        "fuzz",
        role,
        "--seed",
        "1",
        "--json",
        path(&json),
        "--report-dir",
        path(&reports),
    ];
    all.extend_from_slice(args);
    let run = mcpspec(&all, limit);
    let doc = std::fs::read_to_string(&json)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(serde_json::Value::Null);
    (run, doc, dir)
}

/// The `findings` of a fuzzing summary.
pub fn findings(doc: &serde_json::Value) -> &Vec<serde_json::Value> {
    doc["findings"].as_array().expect("findings array")
}

pub fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// `mcpspec reference server --http 127.0.0.1:0` with `faults`, killed when
/// dropped; `base` is the `http://127.0.0.1:PORT` its first line names.
pub struct HttpReference {
    child: Child,
    pub base: String,
}

impl HttpReference {
    pub fn start(faults: &[&str]) -> HttpReference {
        HttpReference::start_with(faults, false)
    }

    /// In OAuth mode (`--auth`): see [`oauth`] for its tokens.
    pub fn start_auth(faults: &[&str]) -> HttpReference {
        HttpReference::start_with(faults, true)
    }

    fn start_with(faults: &[&str], auth: bool) -> HttpReference {
        let mut args = vec!["reference", "server", "--http", "127.0.0.1:0"];
        if auth {
            args.push("--auth");
        }
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
        let line = first_line(&mut child, Duration::from_secs(30));
        let base = line
            .strip_prefix("listening on ")
            .and_then(|rest| rest.split_whitespace().next())
            .filter(|b| b.starts_with("http://127.0.0.1:"))
            .map(str::to_owned);
        let mut server = HttpReference {
            child,
            base: String::new(),
        };
        match base {
            Some(b) => server.base = b,
            None => panic!("unexpected first line {line:?}"),
        }
        server
    }

    /// The Streamable HTTP endpoint.
    pub fn mcp(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The legacy SSE stream.
    pub fn sse(&self) -> String {
        format!("{}/sse", self.base)
    }

    /// OAuth mode: a token for the MCP endpoint, and one its authorization
    /// server issued for another resource (`/other`).
    pub fn tokens(&self) -> (String, String) {
        (
            oauth::token_for(&self.base, &self.mcp()),
            oauth::token_for(&self.base, &format!("{}/other", self.base)),
        )
    }
}

impl Drop for HttpReference {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The first line `child` writes to its (piped) stdout, waiting at most
/// `within` (empty when none came): how a server started on port 0 says
/// where it listens.
pub fn first_line(child: &mut Child, within: Duration) -> String {
    let Some(stdout) = child.stdout.take() else {
        return String::new();
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    rx.recv_timeout(within).unwrap_or_default()
}

/// Whether `path` (an installed test environment: real clients, real
/// servers) exists; `false` means skip, which `CI=true` forbids.
pub fn present(path: &Path) -> bool {
    if path.exists() {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    assert!(
        !ci,
        "CI=true but {} is missing: install it as .ci/run does",
        path.display()
    );
    eprintln!(
        "note: {} is missing (see .ci/run for the install); skipping",
        path.display()
    );
    false
}
