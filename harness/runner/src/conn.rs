//! One case's connection to the peer under test: the transport, the oracle
//! that judges it, an inbox of received messages, and the transcript.
//!
//! ```text
//!   transport ──Stamped events──► Conn::absorb ──► transcript
//!                                     │
//!                                     ├──► Oracle::observe ──► violations (the case's findings)
//!                                     │
//!                                     └──► valid messages ──► inbox (expect steps) / fixture
//!   steps ──send / send_raw──► Conn ──► Oracle::observe(Sent…) ──► transport
//! ```
//!
//! The connection decides nothing about the protocol: every frame, HTTP
//! exchange, SSE event and exit is put to the one judge
//! ([`mcpspec_oracle::Oracle`]), and so is everything the harness sends, so
//! that answers are matched against their requests. What stays here is
//! driving: waiting, the inbox, the transcript, and the harness's side of
//! the role it plays —
//!
//! - [`client_side`]: the harness is the client of a server under test
//!   (requests stamped with the stateless `_meta`, the protocol-version
//!   header once negotiated, the standing GET stream);
//! - [`serve`]: the harness serves a client under test (the [`fixture`]
//!   answers what the steps do not hold);
//!
//! and, whatever the role, [`wait`] (for a message, an exit, what is
//! already there) and [`transcript`].

use std::time::Duration;

use mcpspec_engine::session::Undecided;
use mcpspec_engine::{Role, Session, Version, Violation};
use mcpspec_oracle::{Observed, Oracle};
use mcpspec_transport::{Connection, Event, Transport, TransportError, Via};
use mcpspec_wire::{classify, FrameErrorKind, Id, Inbound, Message};
use tokio::time::Instant;

use crate::outcome::TranscriptLine;

mod client_side;
mod fixture;
mod heard;
mod serve;
mod stateless;
mod transcript;
mod wait;
pub use client_side::describe_record;
pub use stateless::{CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY};

use client_side::ClientSide;
use serve::ServerSide;
use transcript::{raw_text, Transcript};

/// A message received and not yet consumed by an `expect`.
#[derive(Debug, Clone)]
pub struct Received {
    pub at_ms: u64,
    /// Its place in the order of arrival (see [`Conn::mark`]).
    pub seq: u64,
    pub msg: Message,
}

/// Why waiting ended without the awaited message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitError {
    Timeout,
    /// The target exited; the text describes how.
    Exited(String),
    /// The target sent something that broke the rules instead of the answer.
    Invalid,
    /// Over HTTP: the POST that carried the request was refused with an
    /// error status and no answer to it, or failed; the refusal says how.
    Refused(mcpspec_oracle::Refusal),
}

/// Serving a client over HTTP: the start of the error of a message no open
/// stream could carry (the client keeps none open, which it may).
pub const NO_STREAM: &str = "the client keeps no stream open that could carry it";
/// Messages kept in the inbox; a flooding target loses the excess.
const INBOX_MAX: usize = 10_000;
/// Violations kept per case; a flooding target's excess is only counted.
const VIOLATIONS_MAX: usize = 1_000;
/// The harness's side of the connection.
#[derive(Debug)]
enum Side {
    /// The harness is the client: the target is a server.
    Client(Box<ClientSide>),
    /// The harness serves a client under test.
    Server(Box<ServerSide>),
}

pub struct Conn {
    proc: Connection,
    transport: Transport,
    side: Side,
    /// The one judge of the peer. Boxed: it is most of a connection's
    /// size, and every future that holds or moves a `Conn` (or a case's
    /// `Ctx`) would carry it inline, often more than once (issue #18).
    oracle: Box<Oracle>,
    /// What the oracle left undecided in the current case (at most
    /// [`VIOLATIONS_MAX`]).
    undecided: Vec<Undecided>,
    /// The version the case runs at.
    version: Version,
    inbox: Vec<Received>,
    transcript: Transcript,
    violations: Vec<Violation>,
    dropped_violations: usize,
    /// The rule the current case's first frame that could not be taken as
    /// a message or an answer broke ([`Conn::unreadable_rule`]).
    unreadable_rule: Option<&'static mcpspec_engine::Requirement>,
    /// The target broke the rules more often than violations are kept: the
    /// case has seen enough, and reading on would only burn CPU.
    flooded: bool,
    /// Until the target's first stdout line, waits last at least until
    /// here: start-up time is not response time.
    startup_until: Instant,
    exit: Option<String>,
    next_id: i64,
    frames: usize,
    /// Messages put in the inbox so far (the next one's `seq`).
    arrived: u64,
    /// What the target said beyond the awaited messages (its last words).
    heard: heard::Heard,
    /// The capabilities the harness declares as the client (the scenario's
    /// `client_capabilities`), stamped into the `_meta` of 2026-07-28
    /// requests; `None`: none declared (`{}`).
    client_capabilities: Option<serde_json::Value>,
}

impl Conn {
    /// A connection to a freshly spawned server under test; `startup` is how
    /// long it may take to write its first line (see [`Conn::wait_for`]).
    pub fn new(proc: impl Into<Connection>, version: Version, startup: Duration) -> Self {
        let mut proc = proc.into();
        if version.lifecycle() == mcpspec_engine::Lifecycle::Stateless {
            // No negotiation to wait for: every HTTP request names the version.
            proc.set_protocol_version(Some(version.as_str().to_owned()));
        }
        Conn::open(proc, version, startup, Side::Client(Box::default()))
    }

    fn open(proc: Connection, version: Version, startup: Duration, side: Side) -> Self {
        let transport = proc.kind();
        let judged = match side {
            Side::Client(_) => Role::Server,
            Side::Server(_) => Role::Client,
        };
        Conn {
            transport,
            proc,
            side,
            oracle: Box::new(Oracle::new(judged, version, transport)),
            undecided: Vec::new(),
            version,
            inbox: Vec::new(),
            transcript: Transcript::new(transport),
            violations: Vec::new(),
            unreadable_rule: None,
            dropped_violations: 0,
            flooded: false,
            startup_until: Instant::now() + startup,
            exit: None,
            next_id: 1,
            frames: 0,
            arrived: 0,
            heard: heard::Heard::default(),
            client_capabilities: None,
        }
    }

    pub fn now_ms(&self) -> u64 {
        u64::try_from(self.proc.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The next harness-chosen request id: 1, 2, 3, … (deterministic).
    pub fn next_id(&mut self) -> Id {
        let id = Id::from(self.next_id);
        self.next_id += 1;
        id
    }

    /// How the target exited, if it has.
    pub fn exit(&self) -> Option<&str> {
        self.exit.as_deref()
    }

    /// The harness's session with the peer, as the oracle keeps it: what is
    /// pending, negotiated, declared.
    pub fn session(&self) -> &Session {
        self.oracle.session()
    }

    /// The harness's role in this case.
    pub fn own_role(&self) -> Role {
        match self.side {
            Side::Client(_) => Role::Client,
            Side::Server(_) => Role::Server,
        }
    }

    pub fn note(&mut self, text: impl Into<String>) {
        let at_ms = self.now_ms();
        self.transcript.line(at_ms, "--", text.into());
    }

    /// Lines that did not fit in the transcript.
    pub fn dropped_lines(&self) -> usize {
        self.transcript.dropped()
    }

    /// The transcript so far, taken out of the connection.
    pub fn take_transcript(&mut self) -> Vec<TranscriptLine> {
        std::mem::take(&mut self.transcript.lines)
    }

    /// The violations the oracle found (at most [`VIOLATIONS_MAX`]).
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    /// What the oracle could not decide in the current case (an answer
    /// that may have crossed its cancellation), in order.
    pub fn undecided(&self) -> &[Undecided] {
        &self.undecided
    }

    /// The case that used the connection is over, and the connection goes
    /// on to serve another (a shared session): what the oracle found and
    /// left undecided so far was the finished case's (its findings hold
    /// the violations), and the next case starts with none.
    pub fn case_over(&mut self) {
        self.undecided.clear();
        self.violations.clear();
        self.unreadable_rule = None;
        self.dropped_violations = 0;
    }

    /// Whether the target broke the rules so often that the harness
    /// stopped reading it.
    pub fn flooded(&self) -> bool {
        self.flooded
    }

    /// The rule broken by the first frame of the current case that could
    /// not be taken as a message or an answer ([`Oracle::unreadable`]: a
    /// line that is no JSON-RPC, a message broken across lines, an answer
    /// with a mangled id): an answer that did not arrive may have been it.
    pub fn unreadable_rule(&self) -> Option<&'static mcpspec_engine::Requirement> {
        self.unreadable_rule
    }

    /// Whether the target went away owing answers, which the oracle judges
    /// at the end of the case (`jsonrpc.request.answered`).
    pub fn owes_answers(&self) -> bool {
        self.oracle.owes_answers()
    }

    /// Violations seen, including those not kept.
    pub fn violation_count(&self) -> usize {
        self.violations.len() + self.dropped_violations
    }

    /// Lines (valid or not) the target has written to stdout.
    pub fn frames_received(&self) -> usize {
        self.frames
    }

    /// Frames that held a JSON-RPC message (valid or not by MCP's rules).
    pub fn messages_received(&self) -> usize {
        self.heard.messages
    }

    /// Frames that were, or tried to be, a response (valid or not).
    pub fn answers_received(&self) -> usize {
        self.heard.answers
    }

    /// Frames that start as JSON does, JSON-RPC or not.
    pub fn json_like_received(&self) -> usize {
        self.heard.json_like
    }

    /// What the target said that was no JSON-RPC at all: how many frames,
    /// and the first, quoted safely (`None` when every frame was JSON-RPC).
    pub fn unreadable(&self) -> Option<String> {
        self.heard.unreadable_text()
    }

    /// The target's last stderr lines, joined (`None` when it wrote none):
    /// what a target that would not start usually says about why.
    pub fn stderr_tail(&self) -> Option<String> {
        self.heard.stderr_text()
    }

    /// `stdio`, `http` or `sse`.
    pub fn transport(&self) -> Transport {
        self.transport
    }

    /// The transport connection, for what only HTTP has (raw exchanges,
    /// the GET stream, the session id).
    pub fn connection(&mut self) -> &mut Connection {
        &mut self.proc
    }

    /// The transport connection, to read what only HTTP has.
    pub fn connection_ref(&self) -> &Connection {
        &self.proc
    }

    /// Puts one observation to the oracle and keeps what it found.
    fn observe(&mut self, at_ms: u64, observed: Observed<'_>) {
        let before = self.oracle.unreadable();
        let found = self.oracle.observe(at_ms, observed);
        if self.unreadable_rule.is_none() && self.oracle.unreadable() > before {
            self.unreadable_rule = self.oracle.unreadable_rule();
        }
        for v in found {
            self.violation(v);
        }
        for u in self.oracle.take_undecided() {
            let text = format!("not judged, {}: {}", u.requirement.id, u.detail);
            self.transcript.line(u.at_ms, "--", text);
            if self.undecided.len() < VIOLATIONS_MAX {
                self.undecided.push(u);
            }
        }
    }

    /// Tells the oracle that this side's request `id`, just sent, cannot be
    /// answered on its own sooner than `at_least` after it went (a `send`'s
    /// `lasts`).
    pub fn lasts(&mut self, id: &Id, at_least: Duration) {
        let at_least_ms = u64::try_from(at_least.as_millis()).unwrap_or(u64::MAX);
        let now = self.now_ms();
        self.observe(now, Observed::Lasts { id, at_least_ms });
    }

    /// The case is over: the oracle judges what the peer still owes (a
    /// server that went away owes every answer it had not sent).
    pub fn judge_end(&mut self) {
        let now = self.now_ms();
        self.observe(now, Observed::End);
    }

    /// Hands the oracle what this side's scripted authorization server saw
    /// `ago` (it keeps its own record; see `crate::auth`).
    pub fn observe_auth(&mut self, ago: Duration, observed: Observed<'_>) {
        let ago = u64::try_from(ago.as_millis()).unwrap_or(u64::MAX);
        let at = self.now_ms().saturating_sub(ago);
        self.observe(at, observed);
    }

    /// Sends one message as a line; the oracle records it.
    pub async fn send(&mut self, msg: &Message) -> Result<(), String> {
        let stamped = match self.side {
            Side::Client(_) => self.with_request_meta(msg),
            Side::Server(_) => None,
        };
        let msg = stamped.as_ref().unwrap_or(msg);
        let text = msg.to_json();
        let now = self.now_ms();
        let mut line = text.clone().into_bytes();
        line.push(b'\n');
        // Record only what was delivered: nothing can be owed for a request
        // that never reached the target. (Answers are only read by `pump`,
        // after this returns, so recording after the write loses nothing.)
        let written = self.write(&line).await;
        match &written {
            Ok(()) => {
                if let Side::Client(c) = &mut self.side {
                    c.sent(msg, self.proc.last_post());
                }
                self.observe(now, Observed::Sent(msg));
                self.transcript
                    .frame(now, ">>", text, &line[..line.len() - 1]);
            }
            Err(e) => self
                .transcript
                .line(now, "--", format!("not delivered ({e}): {text}")),
        }
        written
    }

    /// Waits until the target has accepted what was last sent (over HTTP,
    /// its POST's response head), so that a wait timed from a notification
    /// starts when the target has it, not when the harness let it go.
    /// Events arriving meanwhile queue with their own times.
    pub async fn accepted(&mut self) {
        self.proc.accepted().await;
    }

    /// Sends exact bytes. The oracle reads each line as the target will (a
    /// valid request is pending; unreadable input may be answered with a
    /// null id).
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), String> {
        let now = self.now_ms();
        self.note_outbound(bytes, now);
        self.transcript.frame(now, ">>", raw_text(bytes), bytes);
        self.write(bytes).await
    }

    /// Tells the oracle what `bytes` (one or more lines) asked of the
    /// target, so that its answers are expected: also for an `http` step's
    /// POST to the legacy endpoint, whose answers come on the case's stream.
    pub fn note_outbound(&mut self, bytes: &[u8], now: u64) {
        self.observe(now, Observed::SentBytes(bytes));
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdio = self.transport == Transport::Stdio;
        if !stdio && matches!(self.side, Side::Client(_)) {
            // One POST per write: its exchange settles the requests it carries.
            let now = self.now_ms();
            self.observe(now, Observed::Posted(bytes));
        }
        let mut sent = self.proc.send(bytes).await;
        if let Side::Server(_) = self.side {
            // A client that opens its GET stream just after initialized (or
            // its next POST) is about to be reachable: wait for it, a bit.
            let until = Instant::now() + serve::NO_STREAM_GRACE;
            while matches!(sent, Err(TransportError::NoStream(_))) && Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(20)).await;
                sent = self.proc.send(bytes).await;
            }
            if let Err(TransportError::NoStream(why)) = &sent {
                return Err(format!("{NO_STREAM}: {why}"));
            }
        }
        sent.map_err(|e| {
            if stdio {
                e.to_string() // says "could not write to the target's stdin"
            } else {
                format!("could not send to the target: {e}")
            }
        })
    }

    /// Ends our side: closes a stdio target's stdin; ends an HTTP session
    /// (DELETE) or the legacy SSE stream.
    pub fn close_input(&mut self) {
        let what = match (&self.side, self.transport) {
            (Side::Server(_), _) => "harness closed the server's end of the session",
            (_, Transport::Stdio) => "harness closed stdin",
            (_, Transport::Http) => "harness ended the session (DELETE)",
            (_, Transport::Sse) => "harness closed the SSE stream",
        };
        self.note(what);
        self.proc.close_input();
    }

    /// Receives and absorbs events until `deadline`. Returns early (true)
    /// after each event so callers can re-check their condition; false on
    /// timeout or once the target has exited and all its output was read.
    pub async fn pump(&mut self, deadline: Instant) -> bool {
        if self.exit.is_some() || self.flooded {
            return false;
        }
        let timer = self.fixture_deadline();
        let until = timer.map_or(deadline, |t| t.min(deadline));
        match tokio::time::timeout_at(until, self.proc.recv()).await {
            Ok(Some(ev)) => {
                let at_ms = u64::try_from(ev.at.as_millis()).unwrap_or(u64::MAX);
                self.absorb(at_ms, ev.via, ev.event);
                self.flush_outbox().await;
                true
            }
            Err(_) if timer.is_some_and(|t| t <= deadline) => {
                self.fixture_tick();
                self.flush_outbox().await;
                true
            }
            Ok(None) => {
                if self.exit.is_none() {
                    self.exit = Some("the target's output ended".to_owned());
                }
                false
            }
            Err(_) => false,
        }
    }

    /// Absorbs events for `d`, whatever they are.
    pub async fn idle(&mut self, d: Duration) {
        self.idle_unless(d, self.arrived, |_| false).await;
    }

    fn violation(&mut self, v: Violation) {
        if self.violations.len() < VIOLATIONS_MAX {
            self.violations.push(v);
        } else if !self.flooded {
            self.dropped_violations += 1;
            self.flooded = true;
            self.transcript.line(
                v.at_ms,
                "--",
                format!("the target broke the rules over {VIOLATIONS_MAX} times: the harness stops reading it"),
            );
        } else {
            self.dropped_violations += 1;
        }
    }

    /// One event of the peer's: written to the transcript, put to the
    /// oracle, and (valid messages) handed to the inbox or the fixture.
    fn absorb(&mut self, at_ms: u64, via: Via, event: Event) {
        let mut messages = Vec::new();
        match &event {
            Event::Frame(frame) => {
                self.frames += 1;
                if self.frames == 1 {
                    // The target is up: its case only waits from now on.
                    crate::schedule::past_startup();
                }
                self.transcript
                    .frame(at_ms, "<<", frame.text().to_owned(), &frame.bytes);
                messages = match classify(&frame.bytes) {
                    Ok(Inbound::Single(msg)) => vec![msg],
                    Ok(Inbound::Batch(items)) => items.into_iter().flatten().collect(),
                    Err(_) => Vec::new(),
                };
                self.heard.frame(&frame.bytes, !messages.is_empty());
                // Before the oracle absorbs them: an answer's request is
                // still pending.
                for msg in &messages {
                    self.follow_negotiation(msg);
                    if let Side::Client(c) = &mut self.side {
                        c.answered(msg);
                    }
                }
            }
            Event::FrameError(err) => {
                self.frames += 1;
                self.transcript.frame(
                    at_ms,
                    "<<",
                    format!("[framing] {err}: {}", String::from_utf8_lossy(&err.bytes)),
                    &err.bytes,
                );
                self.heard.unreadable(&err.bytes);
                if matches!(err.kind, FrameErrorKind::Oversize { .. }) {
                    // The limit is the harness's, not the spec's: noted only.
                    self.transcript
                        .line(at_ms, "--", "line dropped: over --max-line".to_owned());
                }
            }
            Event::Stderr(line) => {
                self.heard.stderr(line);
                self.transcript.stderr(at_ms, line.clone());
            }
            Event::Stdout(line) => self.transcript.stderr(at_ms, format!("[stdout] {line}")),
            Event::Exited { code, signal } => {
                let how = match (code, signal) {
                    (Some(c), _) => format!("the target exited with code {c}"),
                    (None, Some(s)) => format!("the target was killed by signal {s}"),
                    (None, None) => "the target exited".to_owned(),
                };
                self.transcript.line(at_ms, "--", how.clone());
                // Its last words belong with how it went away.
                let how = match self.stderr_tail() {
                    Some(tail) => format!("{how}; its stderr ended: {tail}"),
                    None => how,
                };
                self.exit = Some(how);
            }
            Event::Http(record) => {
                self.transcript
                    .line(at_ms, "--", format!("{} [{via}]", describe_record(record)));
                match &mut self.side {
                    Side::Client(c) => c.exchanged(via, record),
                    Side::Server(_) => {
                        let live = self.proc.session_id();
                        self.observe(at_ms, Observed::LiveSession(live.as_deref()));
                        self.served_record(at_ms, record);
                    }
                }
            }
            Event::SseEvent {
                event: kind,
                id,
                data_len,
                ..
            } => {
                let id_text = id
                    .as_deref()
                    .map(|i| format!(" id {i:?}"))
                    .unwrap_or_default();
                self.transcript.line(
                    at_ms,
                    "--",
                    format!("sse event `{kind}`{id_text}, {data_len} bytes of data [{via}]"),
                );
            }
            Event::SseError(err) => {
                self.transcript
                    .line(at_ms, "--", format!("[sse] {err} [{via}]"));
            }
            Event::Closed(how) => {
                self.transcript.line(at_ms, "--", how.clone());
                if self.exit.is_none() {
                    self.exit = Some(how.clone());
                }
            }
        }
        self.observe(at_ms, Observed::Received { via, event: &event });
        for msg in messages {
            if self.serve(at_ms, &msg) {
                continue; // answered by the fixture: no step takes it
            }
            if self.inbox.len() < INBOX_MAX {
                let seq = self.arrived;
                self.arrived += 1;
                self.inbox.push(Received { at_ms, seq, msg });
            }
        }
    }

    /// Ends the case: kills a stdio target's process group (noted in the
    /// transcript when it was still running); ends an HTTP session properly
    /// first (DELETE, bounded), keeping its record.
    pub async fn end(&mut self) {
        match &self.proc {
            Connection::Stdio(_) => {
                if self.exit.is_none() {
                    // What the target already wrote is judged before it is
                    // killed (a second answer, a line of noise): nothing the
                    // case's connection carried goes unjudged.
                    self.drain_ready().await;
                    self.note("harness killed the target's process group");
                }
            }
            Connection::Http(_) | Connection::Sse(_) => {
                if self.exit.is_none() {
                    // As over stdio, what already arrived is judged first:
                    // the session's end (`Closed`) stops the reading.
                    self.drain_ready().await;
                    self.proc.close().await;
                    // Keep the DELETE's record and anything that raced it.
                    self.drain_ready().await;
                }
            }
            Connection::Peer(_) => {
                if self.exit.is_none() {
                    // The server's side ends first: a client that exits on
                    // end of input (most do) gets a moment to.
                    self.proc.close_input();
                    self.wait_exit(Duration::from_millis(300)).await;
                    if self.exit.is_none() {
                        self.note(
                            "harness ended the session and killed the client's process group",
                        );
                    }
                }
            }
        }
        self.proc.kill();
    }
}
