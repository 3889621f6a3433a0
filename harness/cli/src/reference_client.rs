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
//!
//! Before each batch of outputs goes out, the transport is told what the
//! client's state asks of it ([`sync`]): the `MCP-Protocol-Version` header
//! ([`ReferenceClient::header_version`]: 2026-07-28 on every stateless
//! request, `server/discover` included, so the transport adds the routing
//! headers; from 2025-06-18, after initialize); and, once the session is
//! open, over Streamable HTTP, the header misbehaviour of the `http-*` and
//! `header-meta-mismatch` faults, then the optional GET stream for the
//! server's own requests (handshake sessions only: 2026-07-28 has none).
//! Those faults are ignored, with a warning, over the other transports.
//!
//! Over Streamable HTTP a 401, or a 403 `insufficient_scope` (step-up), ends the
//! session: the client authorizes ([`crate::reference_auth`]), then starts again (at most
//! [`MAX_AUTHORIZATIONS`](crate::reference_auth::MAX_AUTHORIZATIONS) times, unless the `auth-retries-forever` fault).
//!
//! Exit codes: the client's (0 clean end, 1 the session failed), 2 usage
//! error, 3 the server could not be started or reached (including a server
//! that ended before sending anything at all).

use std::collections::VecDeque;
use std::time::Duration;

use mcpspec_engine::{Lifecycle, Version};
use mcpspec_model::Exit;
use mcpspec_reference::client::{
    ClientConfig, ClientFault, ReferenceClient, CLIENT_NAME, FAULTS, SPOKEN_VERSIONS,
    STATELESS_VERSION,
};
use mcpspec_reference::{Output, Transport};
use mcpspec_transport::streamable::HttpMisbehaviour;
use mcpspec_transport::{CommandSpec, Connection, Event, HttpRecord, Target, Via};
use tokio::time::{sleep_until, timeout_at, Instant};

use crate::cli::ReferenceClientArgs;
use crate::reference_auth::{
    calls_for_authorization, with_grant, with_token, AuthFaults, AuthFlow, Identity, Token,
    FOREIGN_TOKEN, MAX_AUTHORIZATIONS,
};

/// How long a server process may take to exit once its stdin is closed.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
/// Over HTTP, how long the next POST waits for the server to take the
/// previous one before it goes anyway.
const POST_ORDER_WAIT: Duration = Duration::from_secs(2);

/// Runs `mcpspec reference client`; returns the exit code.
pub async fn run(args: ReferenceClientArgs) -> Exit {
    if args.list_faults {
        print!("{}", list_faults());
        return Exit::Success;
    }
    let (config, target) = match prepare(&args) {
        Ok(ready) => ready,
        Err(e) => {
            eprintln!("error: {e}");
            return Exit::Usage;
        }
    };
    let misbehave = misbehaviour(&config.faults);
    let mut auth = match &target {
        Target::Http { url, .. } => {
            let identity = Identity {
                preregistered: args
                    .client_id
                    .clone()
                    .filter(|id| !id.is_empty())
                    .map(|id| (id, args.client_secret.clone().filter(|s| !s.is_empty()))),
                metadata_url: args.client_metadata_url.clone(),
            };
            match AuthFlow::new(
                config.version,
                url,
                AuthFaults::of(&config.faults),
                identity,
            ) {
                Ok(flow) => Some(flow),
                Err(e) => {
                    eprintln!("error: {e}");
                    return Exit::TargetUnavailable;
                }
            }
        }
        _ => None,
    };
    let transport = match &target {
        Target::Http { .. } => Transport::StreamableHttp,
        Target::Sse { .. } => Transport::LegacySse,
        _ => Transport::Stdio,
    };
    for f in config.faults.iter().filter(|f| !f.applies_to(transport)) {
        eprintln!(
            "{CLIENT_NAME}: fault {f} breaks a rule of Streamable HTTP only; ignored over {transport}"
        );
    }
    let mut target = target;
    if auth.as_ref().is_some_and(|f| f.faults().foreign_token) {
        // A token the client holds for another server, shown to this one.
        target = with_token(target, &Token(FOREIGN_TOKEN.to_owned()), false);
    }
    let mut authorizations = 0u32;
    loop {
        let mut conn = match target
            .connect(mcpspec_wire::DEFAULT_MAX_LINE, config.request_timeout)
            .await
        {
            Ok(conn) => conn,
            Err(e) => {
                eprintln!("error: {e}");
                return Exit::TargetUnavailable;
            }
        };
        // Each start after an authorization takes fresh ids: at 2026-07-28
        // the restarts share no session boundary, so ids stay unique.
        let first_id = 1 + i64::from(authorizations) * IDS_PER_START;
        let driven = drive(
            &mut conn,
            ReferenceClient::new(config.clone()).ids_from(first_id),
            misbehave.clone(),
            auth.is_some(),
        )
        .await;
        shut_down(&mut conn).await;
        let challenge = match driven {
            Driven::Exit(code) => return code,
            Driven::Unauthorized(challenge) => challenge,
        };
        let Some(flow) = auth.as_mut() else {
            return Exit::Failures;
        };
        authorizations += 1;
        if authorizations > MAX_AUTHORIZATIONS && !flow.faults().loops_on_401 {
            eprintln!(
                "{CLIENT_NAME}: the server still answers 401 after {MAX_AUTHORIZATIONS} authorizations: giving up"
            );
            return Exit::Failures;
        }
        eprintln!("{CLIENT_NAME}: the server refused the request (401, or 403 insufficient_scope): authorizing");
        let grant = match flow.authorize(challenge.as_deref()).await {
            Ok(grant) => grant,
            Err(e) => {
                eprintln!("{CLIENT_NAME}: authorization failed: {e}");
                return Exit::Failures;
            }
        };
        target = with_grant(target, &grant, flow.faults());
    }
}

/// Room for the request ids of one start of the client (its workflow
/// sends about a hundred).
const IDS_PER_START: i64 = 100_000;

/// How a session driven by [`drive`] ended.
#[derive(Debug)]
enum Driven {
    /// The client exited with this code.
    Exit(Exit),
    /// The server answered 401 (this `WWW-Authenticate`): authorize, retry.
    Unauthorized(Option<String>),
}

/// Checks the arguments: the client's configuration and the server to reach.
fn prepare(args: &ReferenceClientArgs) -> Result<(ClientConfig, Target), String> {
    let version = args.spec_version.unwrap_or(Version::LATEST_HANDSHAKE);
    if !SPOKEN_VERSIONS.contains(&version) {
        let known: Vec<&str> = SPOKEN_VERSIONS.iter().map(|v| v.as_str()).collect();
        return Err(format!(
            "--spec-version must be one of {}",
            known.join(", ")
        ));
    }
    if args.no_discover && version != STATELESS_VERSION {
        return Err(format!(
            "--no-discover applies to --spec-version {STATELESS_VERSION} only (the handshake versions open with initialize)"
        ));
    }
    let config = ClientConfig {
        version,
        faults: parse_faults(&args.faults)?,
        request_timeout: args.timeout,
        linger: args.linger,
        bare: args.no_capabilities,
        discover: !args.no_discover,
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

/// Lines for `--list-faults`: `name  LEVEL  transports  description
/// (requirement)`, as the server's list: transports is a comma-separated
/// subset of `stdio,http,sse` (`http`: Streamable HTTP, `sse`: legacy
/// HTTP+SSE), the transports over which the fault's violation exists.
pub fn list_faults() -> String {
    let width = FAULTS.iter().map(|e| e.name.len()).max().unwrap_or(0);
    FAULTS
        .iter()
        .map(|e| {
            let transports: Vec<&str> = e.transports.iter().map(|t| t.name()).collect();
            format!(
                "{:<width$}  {:<6}  {:<14}  {} ({})\n",
                e.name,
                e.level.keyword(),
                transports.join(","),
                e.description,
                e.requirement.id
            )
        })
        .collect()
}

/// The Streamable HTTP header misbehaviour of the faults, switched on
/// once the session is open. `header-meta-mismatch` names the newest
/// handshake version while every request's `_meta` names 2026-07-28.
fn misbehaviour(faults: &[ClientFault]) -> HttpMisbehaviour {
    let has = |f| faults.contains(&f);
    HttpMisbehaviour {
        post_accept_json_only: has(ClientFault::HttpBadAccept),
        get_accept_json: has(ClientFault::HttpBadGetAccept),
        no_session_echo: has(ClientFault::HttpNoSessionEcho),
        no_version_header: has(ClientFault::HttpNoVersionHeader),
        no_routing_headers: has(ClientFault::HttpNoRoutingHeaders),
        version_header: has(ClientFault::HeaderMetaMismatch)
            .then(|| Version::LATEST_HANDSHAKE.as_str().to_owned()),
        no_param_headers: has(ClientFault::HttpNoParamHeaders),
        plain_param_headers: has(ClientFault::HttpPlainParamHeaders),
        resume_ignores_retry: has(ClientFault::HttpResumeIgnoresRetry),
        resume_without_last_event_id: has(ClientFault::HttpResumeWithoutLastEventId),
        no_resume: has(ClientFault::HttpNoResume),
    }
}

/// What the transport was last told (see [`sync`]).
#[derive(Debug, Default)]
struct Synced {
    header: Option<Version>,
    open: Option<Version>,
    /// The tools with `x-mcp-header` parameters the transport was given.
    param_tools: usize,
}

/// Runs the session until the client exits; returns its exit code.
/// `misbehave`: the faults' HTTP misbehaviour, once the session is open.
/// `authorizes`: a 401 ends the session for the OAuth flow.
async fn drive(
    conn: &mut Connection,
    mut client: ReferenceClient,
    misbehave: HttpMisbehaviour,
    authorizes: bool,
) -> Driven {
    let start = Instant::now();
    let now = move || u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
    let mut heard = false;
    let mut synced = Synced::default();
    // Over HTTP each message is its own POST, and POSTs in flight together
    // may reach the server in any order: the next one starts only once the
    // server has taken the previous one (its response headers arrived), so
    // that, say, notifications/initialized comes before the next request.
    let http = matches!(conn, Connection::Http(_) | Connection::Sse(_));
    let mut posting: Option<Instant> = None;
    let mut queue: VecDeque<Output> = client.start(now()).into();
    loop {
        sync(conn, &client, &mut synced, &misbehave);
        if posting.is_some_and(|since| since.elapsed() >= POST_ORDER_WAIT) {
            posting = None; // no record came: do not stall the session on it
        }
        while posting.is_none() {
            let Some(output) = queue.pop_front() else {
                break;
            };
            let write = matches!(output, Output::Write(_));
            if let Some(code) = perform(conn, &mut client, vec![output], now(), heard).await {
                return Driven::Exit(code);
            }
            if write && http {
                posting = Some(Instant::now());
            }
        }
        let deadline = client.next_deadline();
        let wake = start + Duration::from_millis(deadline.unwrap_or(0));
        let order_wake = posting.map(|since| since + POST_ORDER_WAIT);
        let outputs = tokio::select! {
            event = conn.recv() => {
                let Some(stamped) = event else {
                    if !heard {
                        eprintln!("error: the server ended before sending anything");
                        return Driven::Exit(Exit::TargetUnavailable);
                    }
                    queue.extend(client.on_eof(now()));
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
                            return Driven::Exit(Exit::TargetUnavailable);
                        }
                        eprintln!("{CLIENT_NAME}: the server process exited {how}");
                        client.on_eof(now())
                    }
                    Event::Closed(why) if !heard => {
                        eprintln!("error: could not reach the server: {why}");
                        return Driven::Exit(Exit::TargetUnavailable);
                    }
                    Event::Closed(why) => {
                        eprintln!("{CLIENT_NAME}: the connection ended: {why}");
                        client.on_eof(now())
                    }
                    Event::Http(record) => {
                        if matches!(stamped.via, Via::Post(_)) {
                            posting = None;
                        }
                        log_http(&record);
                        let challenge = record
                            .response_headers
                            .iter()
                            .find(|(n, _)| n == "www-authenticate")
                            .map(|(_, v)| v.clone());
                        if authorizes && calls_for_authorization(record.status, challenge.as_deref()) {
                            return Driven::Unauthorized(challenge);
                        }
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
            () = sleep_until(order_wake.unwrap_or(start)), if order_wake.is_some() => Vec::new(),
        };
        queue.extend(outputs);
        for url in client.take_fetches() {
            fetch(url).await;
        }
    }
}

/// How long a fetch of the `deref-network-ref` fault may take.
const FETCH_WAIT: Duration = Duration::from_secs(2);

/// An HTTP GET of `url` (the `deref-network-ref` fault's dereference of a
/// network `$ref`), bounded by [`FETCH_WAIT`]; only `http://` URLs are
/// fetched (the harness's canary is one), others are logged and skipped.
async fn fetch(url: String) {
    let Some(rest) = url.strip_prefix("http://") else {
        eprintln!("{CLIENT_NAME}: not fetching {url}: only http:// is fetched");
        return;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let request = format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n");
    let authority = authority.to_owned();
    let done = tokio::task::spawn_blocking(move || -> std::io::Result<String> {
        use std::io::{Read, Write};
        use std::net::ToSocketAddrs;
        let addr = authority
            .to_socket_addrs()?
            .next()
            .ok_or_else(|| std::io::Error::other("no address"))?;
        let mut s = std::net::TcpStream::connect_timeout(&addr, FETCH_WAIT)?;
        s.set_read_timeout(Some(FETCH_WAIT))?;
        s.write_all(request.as_bytes())?;
        let mut reply = Vec::new();
        let _ = s.take(64 * 1024).read_to_end(&mut reply);
        Ok(String::from_utf8_lossy(&reply)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned())
    })
    .await;
    match done {
        Ok(Ok(status)) => eprintln!("{CLIENT_NAME}: fetched $ref {url}: {status}"),
        Ok(Err(e)) => eprintln!("{CLIENT_NAME}: fetching $ref {url} failed: {e}"),
        Err(e) => eprintln!("{CLIENT_NAME}: fetching $ref {url} failed: {e}"),
    }
}

fn exit_status(code: Option<i32>, signal: Option<i32>) -> String {
    match (code, signal) {
        (Some(c), _) => format!("with status {c}"),
        (None, Some(s)) => format!("by signal {s}"),
        (None, None) => "for an unknown reason".to_owned(),
    }
}

/// Tells the transport what the client's state asks of it before the next
/// outputs go out: the `MCP-Protocol-Version` to send, the tools whose
/// parameters `tools/call` mirrors into `Mcp-Param-*` headers, and, once the
/// session is open, over Streamable HTTP, the faults' misbehaviour and (in
/// a handshake session) the GET stream for the server's own messages.
fn sync(
    conn: &mut Connection,
    client: &ReferenceClient,
    synced: &mut Synced,
    misbehave: &HttpMisbehaviour,
) {
    let header = client.header_version();
    if header != synced.header {
        synced.header = header;
        conn.set_protocol_version(header.map(|v| v.as_str().to_owned()));
    }
    // Tools are only ever added to the client's list, so a count tells news.
    let tools = client.param_tools();
    if tools.len() != synced.param_tools {
        synced.param_tools = tools.len();
        if let Connection::Http(session) = &mut *conn {
            session.set_param_tools(tools.clone());
        }
    }
    let open = client.version();
    if open == synced.open {
        return;
    }
    synced.open = open;
    let (Some(version), Connection::Http(session)) = (open, conn) else {
        return;
    };
    if !misbehave.is_off() {
        let mut m = misbehave.clone();
        if !client.is_stateless() {
            // No _meta version to disagree with.
            m.version_header = None;
        }
        session.set_misbehaviour(m);
    }
    if version.lifecycle() == Lifecycle::Handshake {
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

/// Carries out the outputs; `Some(code)` when the client exited. `heard`:
/// the server has sent something (a write that fails before it did means
/// the server could not be run, exactly as its exit before it spoke does).
async fn perform(
    conn: &mut Connection,
    client: &mut ReferenceClient,
    outputs: Vec<Output>,
    now: u64,
    heard: bool,
) -> Option<Exit> {
    for output in outputs {
        match output {
            Output::Write(bytes) => {
                if let Err(e) = conn.send(&bytes).await {
                    if !heard {
                        eprintln!("error: the server could not be written to before it sent anything: {e}");
                        return Some(Exit::TargetUnavailable);
                    }
                    eprintln!("{CLIENT_NAME}: failed to send to the server: {e}");
                    // The server is gone: the session ends (EOF yields only
                    // log lines and the exit).
                    for o in client.on_eof(now) {
                        match o {
                            Output::Stderr(line) => eprintln!("{line}"),
                            Output::Exit(status) => {
                                return Some(crate::reference::exit_for(status))
                            }
                            Output::Write(_) => {}
                        }
                    }
                    return Some(Exit::Failures);
                }
            }
            Output::Stderr(line) => eprintln!("{line}"),
            Output::Exit(status) => return Some(crate::reference::exit_for(status)),
        }
    }
    None
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
    fn list_has_one_line_per_fault_with_its_transports_and_requirement() {
        let list = list_faults();
        assert_eq!(list.lines().count(), FAULTS.len());
        let columns = |name: &str| -> Vec<String> {
            let line = list
                .lines()
                .find(|l| l.starts_with(&format!("{name} ")))
                .unwrap_or_default();
            line.split_whitespace().map(str::to_owned).collect()
        };
        let tamper = columns("tamper-cursor");
        assert_eq!(tamper[1..3], ["MUST", "stdio,http,sse"]);
        assert_eq!(
            tamper.last().map(String::as_str),
            Some("(pagination.client.opaque-cursor)")
        );
        let accept = columns("http-bad-accept");
        assert_eq!(accept[1..3], ["MUST", "http"]);
        assert_eq!(columns("fallback-after-discover")[1], "SHOULD");
    }

    #[test]
    fn each_http_fault_switches_its_own_misbehaviour() {
        assert!(misbehaviour(&[ClientFault::TamperCursor]).is_off());
        // HTTP-only by its rule (x-mcp-header is a Streamable HTTP feature), but
        // carried out by the sans-IO client (which tools it keeps), not here.
        let mut by_client = vec![ClientFault::KeepsInvalidHeaderTools];
        // The OAuth flow's faults are carried out by `reference_auth`.
        by_client.extend(ClientFault::all().filter(|f| f.name().starts_with("auth-")));
        assert!(misbehaviour(&by_client).is_off());
        let all: Vec<ClientFault> = ClientFault::all()
            .filter(|f| !f.applies_to(Transport::Stdio) && !by_client.contains(f))
            .collect();
        for f in &all {
            assert!(!misbehaviour(&[*f]).is_off(), "{f} switches nothing");
        }
        let m = misbehaviour(&all);
        assert!(m.post_accept_json_only && m.get_accept_json && m.no_session_echo);
        assert!(m.no_version_header);
        assert_eq!(m.version_header.as_deref(), Some("2025-11-25"));
    }
}
