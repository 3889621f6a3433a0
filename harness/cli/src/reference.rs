//! `mcpspec reference server`: the built-in reference MCP server on this
//! process's stdin and stdout, or (`--http ADDR`) over HTTP.
//!
//! Over HTTP the server is `mcpspec-reference-http` (Streamable HTTP at
//! `/mcp`, legacy HTTP+SSE at `/sse`); this module binds the address,
//! prints `listening on http://IP:PORT (…)` as the first stdout line (so a
//! caller that asked for port 0 learns the port), and stops on Ctrl-C or
//! SIGTERM. With `--auth` (OAuth mode) a second line says where the
//! protected resource's metadata and the authorization server are.
//! Everything below `run_http` is the stdio driver:
//!
//! The protocol logic lives in the sans-IO crate `mcpspec-reference`; this
//! module is only its driver:
//!
//! ```text
//!   stdin thread ──chunks──► mpsc ──► NdjsonDecoder ──► server.on_frame(now, frame)
//!   sleep_until(next_deadline) ─────────────────────► server.on_tick(now)
//!   channel closed (EOF) ───────────────────────────► server.on_eof(now)
//!        outputs: Write → stdout (flushed), Stderr → stderr, Exit(code) → return code
//! ```
//!
//! stdin is read on a plain thread (the workspace's tokio has no `io-std`;
//! tokio's own stdin uses a blocking thread the same way). The thread is
//! detached: a read blocked on an idle stdin must not hold up process exit.
//! Time is milliseconds since `run_stdio` started, from a monotonic clock.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use mcpspec_model::Exit;
use mcpspec_reference::{Config, Fault, Output, ReferenceServer};
use mcpspec_reference_http::{
    serve_with_shutdown, HttpServerConfig, TcpListener, MCP_PATH, PRM_PATH, SSE_PATH,
};
use mcpspec_wire::NdjsonDecoder;
use tokio::sync::mpsc;
use tokio::time::{sleep_until, Duration, Instant};

/// How `mcpspec reference server` and `reference client` end, from the
/// exit status the reference implementation asks for (`Output::Exit`, and
/// this driver's own): 0 when the session ended cleanly, 1 when it ended in
/// error (the peer broke a rule, or input or output failed) — the only two.
pub fn exit_for(status: i32) -> Exit {
    if status == 0 {
        Exit::Success
    } else {
        Exit::Failures
    }
}

/// Options of `mcpspec reference server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceArgs {
    /// Fault names (`--fault NAME`, repeatable).
    pub faults: Vec<String>,
    /// Items per page of every paginated list.
    pub page_size: usize,
    /// OAuth mode (`--auth`, HTTP only).
    pub auth: bool,
    /// Load shedding (`--shed-above N`, HTTP only).
    pub shed_above: Option<usize>,
}

/// Runs the reference server on this process's stdin/stdout until EOF or an
/// Exit output; returns the exit code. Unknown fault names → `Err` listing
/// the valid ones.
pub async fn run_stdio(args: ReferenceArgs) -> Result<i32, String> {
    let faults = parse_faults(&args.faults)?;
    let mut server = ReferenceServer::new(Config {
        page_size: args.page_size,
        faults,
    });
    let start = Instant::now();
    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(16);
    std::thread::Builder::new()
        .name("reference-stdin".into())
        .spawn(move || read_stdin(&tx))
        .map_err(|e| format!("failed to start the stdin reader: {e}"))?;
    let mut decoder = NdjsonDecoder::default();
    let mut stdout = std::io::stdout();

    loop {
        let deadline = server.next_deadline();
        let wake = start + Duration::from_millis(deadline.unwrap_or(0));
        tokio::select! {
            chunk = rx.recv() => {
                let eof = chunk.is_none();
                match chunk {
                    Some(bytes) => decoder.push(&bytes),
                    None => decoder.finish(),
                }
                while let Some(frame) = decoder.next() {
                    let outputs = server.on_frame(elapsed_ms(start), frame);
                    if let Some(code) = carry_out(outputs, &mut stdout) {
                        return Ok(code);
                    }
                }
                if eof {
                    let outputs = server.on_eof(elapsed_ms(start));
                    // `on_eof` always asks to exit; 0 if it somehow did not.
                    return Ok(carry_out(outputs, &mut stdout).unwrap_or(0));
                }
            }
            () = sleep_until(wake), if deadline.is_some() => {
                // Never tick before the deadline, or the same timer would
                // fire again at once and spin.
                let now = elapsed_ms(start).max(deadline.unwrap_or(0));
                if let Some(code) = carry_out(server.on_tick(now), &mut stdout) {
                    return Ok(code);
                }
            }
        }
    }
}

/// `--http ADDR`: an `IP:PORT` socket address, or `localhost:PORT`.
pub fn parse_http_addr(s: &str) -> Result<SocketAddr, String> {
    if let Some(port) = s.strip_prefix("localhost:") {
        let port = port.parse().map_err(|_| format!("invalid port in {s:?}"))?;
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    s.parse()
        .map_err(|_| format!("invalid address {s:?}: use IP:PORT, e.g. 127.0.0.1:0 or [::1]:8080"))
}

/// The first stdout line of `--http`; tests read the port from it.
pub fn listening_line(addr: SocketAddr) -> String {
    format!("listening on http://{addr} (Streamable HTTP at {MCP_PATH}, legacy SSE at {SSE_PATH})")
}

/// The second stdout line of `--http --auth`: where the metadata is.
pub fn oauth_line(addr: SocketAddr) -> String {
    format!(
        "oauth: protected resource http://{addr}{MCP_PATH}, its metadata at http://{addr}{PRM_PATH}; \
         authorization server http://{addr} (approves at once; PKCE S256, dynamic registration)"
    )
}

/// Runs the reference server over HTTP at `addr` until Ctrl-C or SIGTERM.
pub async fn run_http(args: ReferenceArgs, addr: SocketAddr) -> Result<i32, String> {
    let faults = parse_faults(&args.faults)?;
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: serving on {addr}, which is not a loopback address: other machines can \
             reach the reference server, whose authorization server (--auth) approves anyone"
        );
    }
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| format!("failed to listen on {addr}: {e}"))?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("failed to read the bound address: {e}"))?;
    let mut stdout = std::io::stdout();
    // If stdout is gone nobody learns the port, but the server still works.
    let _ = writeln!(stdout, "{}", listening_line(local)).and_then(|()| stdout.flush());
    if args.auth {
        let _ = writeln!(stdout, "{}", oauth_line(local)).and_then(|()| stdout.flush());
    }
    let mut cfg = HttpServerConfig::new(Config {
        page_size: args.page_size,
        faults,
    });
    if args.auth {
        cfg = cfg.with_auth();
    }
    cfg.shed_above = args.shed_above;
    match serve_with_shutdown(listener, cfg, shutdown_signal()).await {
        Ok(()) => Ok(0),
        Err(e) => {
            eprintln!("mcpspec-reference: HTTP server failed: {e}");
            Ok(1)
        }
    }
}

/// Ctrl-C, or SIGTERM on Unix.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await; // no SIGTERM handler: Ctrl-C only
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Lines for `--list-faults`: `name  LEVEL  transports  description (requirement)`,
/// where transports is a comma-separated subset of `stdio,http,sse` (`http`:
/// Streamable HTTP, `sse`: legacy HTTP+SSE).
pub fn list_faults() -> String {
    let width = Fault::ALL.iter().map(|f| f.name().len()).max().unwrap_or(0);
    Fault::ALL
        .iter()
        .map(|f| {
            let transports: Vec<&str> = f.transports().iter().map(|t| t.name()).collect();
            // `fuzz:` marks a fault only the fuzzer's oracles can see.
            let prefix = if f.is_fuzz_only() { "fuzz:" } else { "" };
            format!(
                "{:<width$}  {:<6}  {:<14}  {} ({})\n",
                f.name(),
                f.level().keyword(),
                format!("{prefix}{}", transports.join(",")),
                f.description(),
                f.requirement().id
            )
        })
        .collect()
}

fn parse_faults(names: &[String]) -> Result<Vec<Fault>, String> {
    names
        .iter()
        .map(|name| {
            Fault::from_name(name).ok_or_else(|| {
                let valid: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                format!(
                    "unknown fault {name:?}; valid faults: {} (see --list-faults)",
                    valid.join(", ")
                )
            })
        })
        .collect()
}

fn elapsed_ms(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Reads stdin until EOF or an error; dropping `tx` tells the server.
fn read_stdin(tx: &mpsc::Sender<Vec<u8>>) {
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stdin.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tx.blocking_send(buf[..n].to_vec()).is_err() {
                    return; // the server is gone
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                eprintln!("mcpspec-reference: failed to read stdin: {e}; treating it as closed");
                return;
            }
        }
    }
}

/// Performs the outputs; `Some(code)` when the server must exit now. The
/// bytes of consecutive writes go out in one write: what the server sends in
/// answer to one input (a response and its copy under `duplicate-response`)
/// reaches the peer together, as one read, not split by the scheduler —
/// which keeps a fault's verdict independent of the machine's load.
fn carry_out(outputs: Vec<Output>, stdout: &mut std::io::Stdout) -> Option<i32> {
    let mut pending: Vec<u8> = Vec::new();
    for output in outputs {
        match output {
            Output::Write(bytes) => pending.extend_from_slice(&bytes),
            Output::Stderr(line) => {
                if let Some(code) = write_out(&mut pending, stdout) {
                    return Some(code);
                }
                eprintln!("{line}");
            }
            Output::Exit(code) => {
                // Exiting anyway; a failure to write changes nothing.
                let _ = write_out(&mut pending, stdout);
                return Some(code);
            }
        }
    }
    write_out(&mut pending, stdout)
}

/// Writes and flushes `pending` (when there is any) in one write, emptying
/// it; `Some(code)` when stdout failed.
fn write_out(pending: &mut Vec<u8>, stdout: &mut std::io::Stdout) -> Option<i32> {
    if pending.is_empty() {
        return None;
    }
    let result = stdout.write_all(pending).and_then(|()| stdout.flush());
    pending.clear();
    result.err().map(|e| stdout_failed(&e))
}

/// stdout is gone: a closed pipe means the client left (exit 0); anything
/// else is an error (exit 1).
fn stdout_failed(e: &std::io::Error) -> i32 {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        0
    } else {
        eprintln!("mcpspec-reference: failed to write to stdout: {e}");
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_names_are_checked() {
        assert_eq!(parse_faults(&["no-batch".into()]), Ok(vec![Fault::NoBatch]));
        let Err(err) = parse_faults(&["nope".into()]) else {
            panic!("an unknown fault name was accepted");
        };
        assert!(err.contains("\"nope\"") && err.contains("answer-notification"));
    }

    #[test]
    fn list_has_one_line_per_fault() {
        let list = list_faults();
        assert_eq!(list.lines().count(), Fault::ALL.len());
        assert!(list
            .lines()
            .any(|l| l.starts_with("answer-notification") && l.contains("MUST")));
        let words = |name: &str| -> Vec<String> {
            let line = list.lines().find(|l| l.starts_with(name)).unwrap_or("");
            line.split_whitespace().take(3).map(str::to_owned).collect()
        };
        assert_eq!(words("no-batch")[2], "stdio,http,sse");
        assert_eq!(words("stdout-noise")[2], "stdio");
        assert_eq!(words("http-delete-ignored")[2], "http");
        assert_eq!(words("sse-endpoint-not-first")[2], "sse");
    }

    #[test]
    fn http_addresses() {
        assert_eq!(
            parse_http_addr("127.0.0.1:0"),
            Ok("127.0.0.1:0".parse().unwrap())
        );
        assert_eq!(
            parse_http_addr("localhost:80"),
            Ok("127.0.0.1:80".parse().unwrap())
        );
        assert_eq!(parse_http_addr("[::1]:9"), Ok("[::1]:9".parse().unwrap()));
        assert!(parse_http_addr("127.0.0.1").is_err());
        assert!(parse_http_addr("example.com:80").is_err());
        assert_eq!(
            listening_line("127.0.0.1:8080".parse().unwrap()),
            "listening on http://127.0.0.1:8080 (Streamable HTTP at /mcp, legacy SSE at /sse)"
        );
    }
}
