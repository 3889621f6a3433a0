//! `mcpspec reference client`: the built-in reference MCP client, run
//! against a server — the way mcpspec's client scenarios are validated
//! (`mcpspec client -- mcpspec reference client -- {server}`).
//!
//! The protocol logic is the sans-IO `mcpspec_reference::client`; this module
//! only connects it to a server and the clock:
//!
//! ```text
//!   connect: -- CMD (stdio child) | --url (Streamable HTTP) | --sse-url (legacy SSE)
//!   client.start(now) ──────────────────────────────────────────► outputs
//!   Frame / FrameError ─► client.on_frame(now, frame) ──────────► outputs
//!   sleep_until(next_deadline) ─► client.on_tick(now) ──────────► outputs
//!   Exited / Closed / end of events ─► client.on_eof(now) ──────► outputs
//!   Stderr (the server's) ─► our stderr, verbatim; HTTP failures ─► logged
//!        outputs: Write → the server, Stderr → stderr, Exit(code) → shut down, exit code
//! ```
//!
//! Shutting down closes the server's input (stdio: its stdin; Streamable
//! HTTP: DELETE; legacy SSE: the stream), waits at most [`CLOSE_WAIT`] for a
//! child process to exit, then kills it (its whole process group).
//! Over Streamable HTTP, once initialized the `MCP-Protocol-Version` header
//! is sent (from 2025-06-18 on) and the optional GET stream is opened for
//! the server's own requests.
//!
//! Exit codes: the client's (0 clean end, 1 the session failed), 2 usage
//! error, 3 the server could not be started or reached (including a server
//! that ended before sending anything at all).

use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_reference::client::{
    ClientConfig, ClientFault, ReferenceClient, CLIENT_NAME, CLIENT_VERSIONS, FAULTS,
};
use mcpspec_reference::Output;
use mcpspec_transport::{CommandSpec, Connection, Event, HttpRecord, Target};
use tokio::time::{sleep_until, timeout_at, Instant};

use crate::cli::ReferenceClientArgs;
use crate::EXIT_USAGE;

/// The server could not be started or reached.
const EXIT_UNREACHABLE: u8 = 3;

/// How long a server process may take to exit once its stdin is closed.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Runs `mcpspec reference client`; returns the exit code.
pub async fn run(args: ReferenceClientArgs) -> u8 {
    if args.list_faults {
        print!("{}", list_faults());
        return 0;
    }
    let (config, target) = match prepare(&args) {
        Ok(ready) => ready,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let mut conn = match target
        .connect(mcpspec_wire::DEFAULT_MAX_LINE, config.request_timeout)
        .await
    {
        Ok(conn) => conn,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_UNREACHABLE;
        }
    };
    let code = drive(&mut conn, ReferenceClient::new(config)).await;
    shut_down(&mut conn).await;
    code
}

/// Checks the arguments: the client's configuration and the server to reach.
fn prepare(args: &ReferenceClientArgs) -> Result<(ClientConfig, Target), String> {
    let version = args.spec_version.unwrap_or(Version::LATEST_HANDSHAKE);
    if !CLIENT_VERSIONS.contains(&version) {
        let known: Vec<&str> = CLIENT_VERSIONS.iter().map(|v| v.as_str()).collect();
        return Err(format!(
            "the reference client speaks the initialize handshake only: --spec-version must be one of {}",
            known.join(", ")
        ));
    }
    let config = ClientConfig {
        version,
        faults: parse_faults(&args.faults)?,
        request_timeout: args.timeout,
        linger: args.linger,
        bare: args.no_capabilities,
    };
    let target = Target::choose(
        args.url.as_deref(),
        args.sse_url.as_deref(),
        &[],
        || match args.command.split_first() {
            Some((program, rest)) => Ok(CommandSpec::new(program.clone(), rest.iter().cloned())),
            None => Err(
                "no server given: use -- SERVER_CMD [ARGS...], --url URL or --sse-url URL"
                    .to_owned(),
            ),
        },
    )?;
    Ok((config, target))
}

fn parse_faults(names: &[String]) -> Result<Vec<ClientFault>, String> {
    names
        .iter()
        .map(|name| {
            ClientFault::from_name(name).ok_or_else(|| {
                let valid: Vec<&str> = FAULTS.iter().map(|e| e.name).collect();
                format!(
                    "unknown fault {name:?}; valid faults: {} (see --list-faults)",
                    valid.join(", ")
                )
            })
        })
        .collect()
}

/// Lines for `--list-faults`: `name  LEVEL  description (requirement)`.
pub fn list_faults() -> String {
    let width = FAULTS.iter().map(|e| e.name.len()).max().unwrap_or(0);
    FAULTS
        .iter()
        .map(|e| {
            format!(
                "{:<width$}  {:<6}  {} ({})\n",
                e.name,
                e.level.keyword(),
                e.description,
                e.requirement
            )
        })
        .collect()
}

/// Runs the session until the client exits; returns its exit code.
async fn drive(conn: &mut Connection, mut client: ReferenceClient) -> u8 {
    let start = Instant::now();
    let now = move || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut heard = false;
    let mut version: Option<Version> = None;
    let mut outputs = client.start(now());
    loop {
        if let Some(code) = perform(conn, &mut client, outputs, now()).await {
            return code;
        }
        let deadline = client.next_deadline();
        let wake = start + Duration::from_millis(deadline.unwrap_or(0));
        outputs = tokio::select! {
            event = conn.recv() => {
                let Some(stamped) = event else {
                    if !heard {
                        eprintln!("error: the server ended before sending anything");
                        return EXIT_UNREACHABLE;
                    }
                    outputs = client.on_eof(now());
                    continue;
                };
                match stamped.event {
                    Event::Frame(frame) => {
                        heard = true;
                        client.on_frame(now(), Ok(frame))
                    }
                    Event::FrameError(e) => {
                        heard = true;
                        client.on_frame(now(), Err(e))
                    }
                    Event::Stderr(line) => {
                        eprintln!("{line}");
                        Vec::new()
                    }
                    Event::Exited { code, signal } => {
                        let how = exit_status(code, signal);
                        if !heard {
                            eprintln!("error: the server exited {how} before sending anything");
                            return EXIT_UNREACHABLE;
                        }
                        eprintln!("{CLIENT_NAME}: the server process exited {how}");
                        client.on_eof(now())
                    }
                    Event::Closed(why) if !heard => {
                        eprintln!("error: could not reach the server: {why}");
                        return EXIT_UNREACHABLE;
                    }
                    Event::Closed(why) => {
                        eprintln!("{CLIENT_NAME}: the connection ended: {why}");
                        client.on_eof(now())
                    }
                    Event::Http(record) => {
                        log_http(&record);
                        Vec::new()
                    }
                    Event::SseError(e) => {
                        eprintln!("{CLIENT_NAME}: ignoring a malformed SSE stream: {e}");
                        Vec::new()
                    }
                    _ => Vec::new(),
                }
            }
            () = sleep_until(wake), if deadline.is_some() => {
                // Never tick before the deadline, or the same timer would
                // fire again at once and spin.
                client.on_tick(now().max(deadline.unwrap_or(0)))
            }
        };
        if client.version() != version {
            version = client.version();
            adopt(conn, version);
        }
    }
}

fn exit_status(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("with status {c}"),
        (None, Some(s)) => format!("by signal {s}"),
        (None, None) => "for an unknown reason".to_owned(),
    }
}

/// Over HTTP, what the negotiated version changes: the header on later
/// requests (from 2025-06-18 on), and the GET stream for the server's own
/// messages, opened once initialized.
fn adopt(conn: &mut Connection, version: Option<Version>) {
    let Some(v) = version else { return };
    if v.has_protocol_version_header() {
        conn.set_protocol_version(Some(v.as_str().to_owned()));
    }
    if let Connection::Http(session) = conn {
        if let Err(e) = session.open_get_stream() {
            eprintln!("{CLIENT_NAME}: could not open the GET stream: {e}");
        }
    }
}

/// A failed HTTP exchange is worth a line; a successful one is not.
fn log_http(record: &HttpRecord) {
    if record.error.is_some() || record.status.is_some_and(|s| s >= 400 && s != 405) {
        eprintln!("{CLIENT_NAME}: HTTP {}", record.summary());
    }
}

/// Carries out the outputs; `Some(code)` when the client exited.
async fn perform(
    conn: &mut Connection,
    client: &mut ReferenceClient,
    outputs: Vec<Output>,
    now: u64,
) -> Option<u8> {
    for output in outputs {
        match output {
            Output::Write(bytes) => {
                if let Err(e) = conn.send(&bytes).await {
                    eprintln!("{CLIENT_NAME}: failed to send to the server: {e}");
                    // The server is gone: the session ends (EOF yields only
                    // log lines and the exit).
                    for o in client.on_eof(now) {
                        match o {
                            Output::Stderr(line) => eprintln!("{line}"),
                            Output::Exit(code) => return Some(exit_code(code)),
                            Output::Write(_) => {}
                        }
                    }
                    return Some(1);
                }
            }
            Output::Stderr(line) => eprintln!("{line}"),
            Output::Exit(code) => return Some(exit_code(code)),
        }
    }
    None
}

fn exit_code(code: i32) -> u8 {
    u8::try_from(code).unwrap_or(1)
}

/// Ends the connection: input closed, a child given [`CLOSE_WAIT`] to exit
/// (its stderr still passed through), then killed.
async fn shut_down(conn: &mut Connection) {
    conn.close().await;
    if matches!(conn, Connection::Stdio(_)) && !conn.has_exited() {
        let deadline = Instant::now() + CLOSE_WAIT;
        while let Ok(Some(stamped)) = timeout_at(deadline, conn.recv()).await {
            match stamped.event {
                Event::Stderr(line) => eprintln!("{line}"),
                Event::Exited { .. } => break,
                _ => {}
            }
        }
    }
    conn.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fault_names_are_checked() {
        assert_eq!(
            parse_faults(&["no-batch".into()]),
            Ok(vec![ClientFault::NoBatch])
        );
        let Err(err) = parse_faults(&["nope".into()]) else {
            panic!("an unknown fault name was accepted");
        };
        assert!(err.contains("\"nope\"") && err.contains("skip-initialized"));
    }

    #[test]
    fn list_has_one_line_per_fault_with_its_requirement() {
        let list = list_faults();
        assert_eq!(list.lines().count(), FAULTS.len());
        let line = list
            .lines()
            .find(|l| l.starts_with("tamper-cursor "))
            .unwrap_or_default();
        assert!(line.contains("MUST") && line.ends_with("(pagination.client.opaque-cursor)"));
    }
}
