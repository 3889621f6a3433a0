//! One case's connection to the target: the transport, the engine's oracle
//! session, an inbox of received messages, and the transcript.
//!
//! Every frame the target sends passes through [`Conn::absorb`]: it is
//! classified by the wire layer, judged by the engine and checked against
//! the version's message schemas (violations are kept for the case's
//! findings), written to the transcript and, when valid, put
//! in the inbox where `expect` steps find it. Nothing is judged twice and
//! nothing is dropped silently: malformed output becomes a violation.

use std::time::Duration;

use mcpspec_engine::requirement::known;
use mcpspec_engine::{Role, Session, Version, Violation};
use mcpspec_transport::{Connection, Event, HttpRecord, TransportError, Via};
use mcpspec_wire::{classify, FrameErrorKind, Id, Inbound, Message};
use tokio::time::Instant;

use crate::outcome::TranscriptLine;
use crate::schema;

mod fixture;
mod http;
mod peer_http;
mod serve;
mod stateless;
pub use http::describe_record;
pub use stateless::{CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY};

/// A message received and not yet consumed by an `expect`.
#[derive(Debug, Clone)]
pub struct Received {
    pub at_ms: u64,
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
    /// error status and no answer to it; the text says how.
    Refused(String),
}

/// Transcript lines kept per case before the rest is only counted.
const TRANSCRIPT_MAX: usize = 2000;
/// Stderr lines kept in the transcript.
const STDERR_MAX: usize = 200;
/// Text kept of one transcript line.
const LINE_MAX: usize = 2000;
/// Exact frame bytes kept per case (for `--report-dir` transcripts); frames
/// past the budget keep only their text.
const RAW_BUDGET: usize = 16 * 1024 * 1024;
/// Serving a client over HTTP: how long a message waits for a stream the
/// client opens.
const NO_STREAM_GRACE: Duration = Duration::from_secs(2);
/// Serving a client over HTTP: the start of the error of a message no open
/// stream could carry (the client keeps none open, which it may).
pub const NO_STREAM: &str = "the client keeps no stream open that could carry it";
/// Messages kept in the inbox; a flooding target loses the excess.
const INBOX_MAX: usize = 10_000;
/// Violations kept per case; a flooding target's excess is only counted.
const VIOLATIONS_MAX: usize = 1_000;

pub struct Conn {
    proc: Connection,
    /// The harness's role: `Client` against a server under test, `Server`
    /// (with the fixture) against a client under test.
    own: Role,
    /// Client cases: answers the client's requests the steps do not hold.
    fixture: Option<fixture::Fixture>,
    /// Client cases: lines the fixture produced, written by the next `pump`.
    outbox: Vec<Vec<u8>>,
    /// Client cases: the client went away while one of its requests was
    /// held unanswered — it gave up a request it was waiting for.
    gone_while_holding: Option<String>,
    /// `stdio`, `http` or `sse`: the transcript's `transport`.
    transport: &'static str,
    /// SSE event ids seen on the session's streams (Streamable HTTP):
    /// each must be unique within the session.
    event_ids: std::collections::HashSet<String>,
    /// The record of the standing GET stream, once it answered.
    get_record: Option<HttpRecord>,
    /// Per POST of the session (`Via::Post(n)` is entry n-1): the ids of
    /// the requests it carried, and its HTTP status once known.
    posts: Vec<(Vec<Id>, Option<u16>)>,
    /// Requests whose POST was refused without an answer: id → how.
    refused: Vec<(Id, String)>,
    pub session: Session,
    /// The version the case runs at: what received messages are checked against.
    version: Version,
    inbox: Vec<Received>,
    pub transcript: Vec<TranscriptLine>,
    dropped_lines: usize,
    raw_budget: usize,
    stderr_lines: usize,
    pub violations: Vec<Violation>,
    dropped_violations: usize,
    /// The target broke the rules more often than violations are kept: the
    /// case has seen enough, and reading on would only burn CPU.
    flooded: bool,
    /// Until the target's first stdout line, waits last at least until
    /// here: start-up time is not response time.
    startup_until: Instant,
    exit: Option<String>,
    next_id: i64,
    frames: usize,
}

impl Conn {
    /// A connection to a freshly spawned target; `startup` is how long it
    /// may take to write its first line (see [`Conn::wait_for`]).
    pub fn new(proc: impl Into<Connection>, version: Version, startup: Duration) -> Self {
        let mut proc = proc.into();
        if version.lifecycle() == mcpspec_engine::Lifecycle::Stateless {
            // No negotiation to wait for: every HTTP request names the version.
            proc.set_protocol_version(Some(version.as_str().to_owned()));
        }
        Conn {
            transport: proc.transport(),
            proc,
            own: Role::Client,
            fixture: None,
            outbox: Vec::new(),
            gone_while_holding: None,
            event_ids: std::collections::HashSet::new(),
            get_record: None,
            posts: Vec::new(),
            refused: Vec::new(),
            session: Session::new(Role::Client, Some(version)),
            version,
            inbox: Vec::new(),
            transcript: Vec::new(),
            dropped_lines: 0,
            raw_budget: RAW_BUDGET,
            stderr_lines: 0,
            violations: Vec::new(),
            dropped_violations: 0,
            flooded: false,
            startup_until: Instant::now() + startup,
            exit: None,
            next_id: 1,
            frames: 0,
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

    pub fn note(&mut self, text: impl Into<String>) {
        let at_ms = self.now_ms();
        self.push_line(at_ms, "--", text.into());
    }

    fn push_line(&mut self, at_ms: u64, dir: &'static str, mut text: String) {
        if self.transcript.len() >= TRANSCRIPT_MAX {
            self.dropped_lines += 1;
            return;
        }
        if text.len() > LINE_MAX {
            let mut cut = LINE_MAX;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str(" …");
        }
        self.transcript.push(TranscriptLine {
            at_ms,
            dir,
            text,
            transport: self.transport,
            raw: None,
        });
    }

    /// Like `push_line`, and keeps the frame's exact bytes while the raw
    /// budget lasts.
    fn push_frame(&mut self, at_ms: u64, dir: &'static str, text: String, raw: &[u8]) {
        let before = self.transcript.len();
        self.push_line(at_ms, dir, text);
        if self.transcript.len() > before && raw.len() <= self.raw_budget {
            self.raw_budget -= raw.len();
            if let Some(line) = self.transcript.last_mut() {
                line.raw = Some(raw.to_vec());
            }
        }
    }

    /// Lines that did not fit in the transcript.
    pub fn dropped_lines(&self) -> usize {
        self.dropped_lines
    }

    /// Sends one message as a line; the engine records it.
    pub async fn send(&mut self, msg: &Message) -> Result<(), String> {
        let stamped = match self.own {
            Role::Client => self.with_request_meta(msg),
            _ => None,
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
                self.session.outbound(msg, now);
                self.push_frame(now, ">>", text, &line[..line.len() - 1]);
            }
            Err(e) => self.push_line(now, "--", format!("not delivered ({e}): {text}")),
        }
        written
    }

    /// Sends exact bytes. Each line is classified so the engine knows what
    /// answers to allow (a valid request is pending; unreadable input may be
    /// answered with a null id).
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), String> {
        let now = self.now_ms();
        self.note_outbound(bytes, now);
        self.push_frame(now, ">>", raw_text(bytes), bytes);
        self.write(bytes).await
    }

    /// Tells the engine what `bytes` (one or more lines) asked of the
    /// target, so that its answers are expected: also for an `http` step's
    /// POST to the legacy endpoint, whose answers come on the case's stream.
    pub fn note_outbound(&mut self, bytes: &[u8], now: u64) {
        let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop(); // what follows the final newline is not a line
        }
        for line in lines {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                self.session.outbound_blank();
                continue;
            }
            match classify(line) {
                Ok(Inbound::Single(m)) => self.session.outbound(&m, now),
                Ok(Inbound::Batch(items)) => {
                    for item in items {
                        match item {
                            Ok(m) => self.session.outbound(&m, now),
                            Err(e) => self.session.outbound_unreadable(&e),
                        }
                    }
                }
                Err(e) => self.session.outbound_unreadable(&e),
            }
        }
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        let stdio = !matches!(self.proc, Connection::Http(_) | Connection::Sse(_));
        if !stdio {
            // One POST per write: remember which requests it carries.
            let ids = match classify(crate::http::trim_newline(bytes)) {
                Ok(Inbound::Single(Message::Request(r))) => vec![r.id],
                Ok(Inbound::Batch(items)) => items
                    .into_iter()
                    .filter_map(|m| match m {
                        Ok(Message::Request(r)) => Some(r.id),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            self.posts.push((ids, None));
        }
        let mut sent = self.proc.send(bytes).await;
        if self.own == Role::Server {
            // A client that opens its GET stream just after initialized (or
            // its next POST) is about to be reachable: wait for it, a bit.
            let until = Instant::now() + NO_STREAM_GRACE;
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
        let now = self.now_ms();
        let what = match self.transport {
            _ if self.own == Role::Server => "harness closed the server's end of the session",
            "stdio" => "harness closed stdin",
            "http" => "harness ended the session (DELETE)",
            _ => "harness closed the SSE stream",
        };
        self.push_line(now, "--", what.to_owned());
        self.proc.close_input();
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

    /// `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        self.transport
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
        let deadline = Instant::now() + d;
        while Instant::now() < deadline {
            if !self.pump(deadline).await && (self.exit.is_some() || self.flooded) {
                tokio::time::sleep_until(deadline).await;
            }
        }
    }

    fn violation(&mut self, v: Violation) {
        if self.violations.len() < VIOLATIONS_MAX {
            self.violations.push(v);
        } else if !self.flooded {
            self.dropped_violations += 1;
            self.flooded = true;
            let at_ms = v.at_ms;
            self.push_line(
                at_ms,
                "--",
                format!("the target broke the rules over {VIOLATIONS_MAX} times: the harness stops reading it"),
            );
        } else {
            self.dropped_violations += 1;
        }
    }

    /// Violations seen, including those not kept.
    pub fn violation_count(&self) -> usize {
        self.violations.len() + self.dropped_violations
    }

    /// Lines (valid or not) the target has written to stdout.
    pub fn frames_received(&self) -> usize {
        self.frames
    }

    fn absorb(&mut self, at_ms: u64, via: Via, event: Event) {
        if matches!(event, Event::Frame(_) | Event::FrameError(_)) {
            self.frames += 1;
        }
        match event {
            Event::Frame(frame) => {
                self.push_frame(at_ms, "<<", frame.text().to_owned(), &frame.bytes);
                // (A client under test posts its messages: that is its way.)
                if self.transport == "sse"
                    && matches!(via, Via::Post(_))
                    && self.own == Role::Client
                {
                    self.violation(Violation {
                        requirement: known("sse.message-event"),
                        detail: format!(
                            "a message came in the body of the response to a POST ({via}), not as a message event on the SSE stream"
                        ),
                        at_ms,
                    });
                }
                match classify(&frame.bytes) {
                    Ok(Inbound::Single(msg)) => self.receive(at_ms, via, msg),
                    Ok(Inbound::Batch(items)) => {
                        if let Some(v) = self.session.inbound_batch(at_ms) {
                            self.violation(v);
                        }
                        for item in items {
                            match item {
                                Ok(msg) => self.receive(at_ms, via, msg),
                                Err(invalid) => {
                                    let v = self.session.inbound_invalid(&invalid, at_ms);
                                    self.violation(v);
                                }
                            }
                        }
                    }
                    Err(invalid) if invalid.kind.is_parse_error() => {
                        let (requirement, what) = match via {
                            Via::Stdio if self.own == Role::Server => (
                                "stdio.client.stdin-only-mcp",
                                format!("line {} the client wrote to the server", frame.line),
                            ),
                            Via::Stdio => (
                                "stdio.stdout-only-mcp",
                                format!("stdout line {}", frame.line),
                            ),
                            // A client's POST body that is no message.
                            other if self.own == Role::Server => (
                                "jsonrpc.message.valid",
                                format!("the body of the client's {other}"),
                            ),
                            Via::Legacy => ("sse.message-event", "an SSE message event".to_owned()),
                            other => (
                                "http.post.request-content-type",
                                format!("a message on {other}"),
                            ),
                        };
                        self.violation(Violation {
                            requirement: known(requirement),
                            detail: format!("{what} is not a JSON-RPC message ({})", invalid.kind),
                            at_ms,
                        });
                    }
                    Err(invalid) => {
                        let v = self.session.inbound_invalid(&invalid, at_ms);
                        self.violation(v);
                    }
                }
            }
            Event::FrameError(err) => {
                self.push_frame(
                    at_ms,
                    "<<",
                    format!("[framing] {err}: {}", String::from_utf8_lossy(&err.bytes)),
                    &err.bytes,
                );
                if matches!(err.kind, FrameErrorKind::Oversize { .. }) {
                    // The limit is the harness's, not the spec's: note it only.
                    self.push_line(at_ms, "--", "line dropped: over --max-line".to_owned());
                } else {
                    let requirement = match via {
                        Via::Stdio => "stdio.newline-delimited",
                        _ if self.own == Role::Server => "jsonrpc.message.valid",
                        Via::Legacy => "sse.message-event",
                        _ => "http.post.request-content-type",
                    };
                    self.violation(Violation {
                        requirement: known(requirement),
                        detail: format!("{err} (on {via})"),
                        at_ms,
                    });
                }
            }
            Event::Stderr(line) => {
                self.stderr_lines += 1;
                if self.stderr_lines <= STDERR_MAX {
                    self.push_line(at_ms, "!!", line);
                }
            }
            Event::Stdout(line) => {
                self.stderr_lines += 1;
                if self.stderr_lines <= STDERR_MAX {
                    self.push_line(at_ms, "!!", format!("[stdout] {line}"));
                }
            }
            Event::Exited { code, signal } => {
                let how = match (code, signal) {
                    (Some(c), _) => format!("the target exited with code {c}"),
                    (None, Some(s)) => format!("the target was killed by signal {s}"),
                    (None, None) => "the target exited".to_owned(),
                };
                self.push_line(at_ms, "--", how.clone());
                self.note_gone(&how);
                self.exit = Some(how);
                self.session.close();
            }
            Event::Http(record) => {
                self.push_line(at_ms, "--", format!("{} [{via}]", describe_record(&record)));
                if self.own == Role::Server {
                    self.judge_client_request(at_ms, via, &record);
                }
                if let (Via::Post(n), Role::Client) = (via, self.own) {
                    self.note_post_status(n, &record);
                }
                if via == Via::Get && self.get_record.is_none() {
                    self.get_record = Some(*record);
                }
            }
            Event::SseEvent {
                event,
                id,
                data_len,
                ..
            } => {
                let id_text = id
                    .as_deref()
                    .map(|i| format!(" id {i:?}"))
                    .unwrap_or_default();
                self.push_line(
                    at_ms,
                    "--",
                    format!("sse event `{event}`{id_text}, {data_len} bytes of data [{via}]"),
                );
                // Sessions (and the rule) end with 2025-11-25: a stateless
                // POST's stream stands alone.
                let streamable = matches!(via, Via::Post(_) | Via::Resumed(_) | Via::Get)
                    && self.version.lifecycle() != mcpspec_engine::Lifecycle::Stateless;
                if let (true, Some(id)) = (streamable, id) {
                    if !id.is_empty() && !self.event_ids.insert(id.clone()) {
                        self.violation(Violation {
                            requirement: known("http.resume.event-id-unique"),
                            detail: format!("SSE event id {id:?} was used twice in the session (again on {via})"),
                            at_ms,
                        });
                    }
                }
            }
            Event::SseError(err) => {
                self.push_line(at_ms, "--", format!("[sse] {err} [{via}]"));
                let requirement = if via == Via::Legacy {
                    "sse.message-event"
                } else {
                    "http.post.request-content-type"
                };
                self.violation(Violation {
                    requirement: known(requirement),
                    detail: format!("the SSE stream ({via}) broke the event-stream format: {err}"),
                    at_ms,
                });
            }
            Event::Closed(how) => {
                self.push_line(at_ms, "--", how.clone());
                if self.exit.is_none() {
                    self.note_gone(&how);
                    self.exit = Some(how);
                    self.session.close();
                }
            }
        }
    }

    fn receive(&mut self, at_ms: u64, via: Via, msg: Message) {
        if self.refusal_body(via, &msg) {
            if self.inbox.len() < INBOX_MAX {
                self.inbox.push(Received { at_ms, msg });
            }
            return;
        }
        if let Message::Response(r) = &msg {
            if let Some(id) = &r.id {
                self.answered(id);
            }
        }
        if via == Via::Get {
            if let Message::Response(r) = &msg {
                self.violation(Violation {
                    requirement: known("http.get.no-responses"),
                    detail: format!(
                        "a response (id {}) arrived on the standing GET stream, not on the stream of its POST",
                        r.id.as_ref().map_or_else(|| "null".to_owned(), ToString::to_string)
                    ),
                    at_ms,
                });
            }
        }
        // Before the session absorbs it: an answer's request is still pending.
        self.follow_negotiation(&msg);
        let peer = match self.own {
            Role::Client => Role::Server,
            _ => Role::Client,
        };
        if let Some(v) = schema::check(&self.session, self.version, peer, &msg, at_ms) {
            self.violation(v);
        }
        for v in self.session.inbound(&msg, at_ms) {
            self.violation(v);
        }
        if self.serve(at_ms, &msg) {
            return; // answered by the fixture: no step takes it
        }
        if self.inbox.len() < INBOX_MAX {
            self.inbox.push(Received { at_ms, msg });
        }
    }

    /// A wait's deadline: `base`, or the end of the start-up allowance while
    /// the target has not written a line yet (re-evaluated as lines arrive,
    /// so the first line ends the extension).
    fn extended(&self, base: Instant) -> Instant {
        if self.frames == 0 {
            base.max(self.startup_until)
        } else {
            base
        }
    }

    /// Removes and returns the first unconsumed message satisfying `pred`.
    pub fn take(&mut self, pred: impl Fn(&Message) -> bool) -> Option<Received> {
        let i = self.inbox.iter().position(|r| pred(&r.msg))?;
        Some(self.inbox.remove(i))
    }

    /// Waits up to `within` for a message satisfying `pred`, and consumes it.
    /// Until the target has written its first line, the wait lasts at least
    /// until its start-up allowance ends: an interpreter that takes seconds
    /// to start is slow to start, not slow to answer.
    pub async fn wait_for(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<Received, WaitError> {
        let i = self.wait_index(within, pred).await?;
        Ok(self.inbox.remove(i))
    }

    /// Waits (as [`Conn::wait_for`]) until a message satisfying `pred` is in
    /// the inbox; its position there.
    async fn wait_index(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<usize, WaitError> {
        let base = Instant::now() + within;
        loop {
            let deadline = self.extended(base);
            if let Some(i) = self.inbox.iter().position(|r| pred(&r.msg)) {
                return Ok(i);
            }
            if let Some(how) = self.refused_for(&pred) {
                return Err(WaitError::Refused(how));
            }
            if let Some(how) = &self.exit {
                return Err(WaitError::Exited(how.clone()));
            }
            if self.flooded {
                return Err(WaitError::Invalid);
            }
            if !self.pump(deadline).await && Instant::now() >= deadline {
                return Err(WaitError::Timeout);
            }
        }
    }

    /// Receives every event already waiting, without waiting for more.
    pub async fn drain_ready(&mut self) {
        while self.pump(Instant::now()).await {}
    }

    /// Like [`Conn::wait_for`], for an answer that is due at once (the
    /// handshake): once the target has broken a rule while we wait and then
    /// stays quiet for `QUIET`, the broken message was its answer, and
    /// waiting on would only burn the timeout. Ends with
    /// [`WaitError::Invalid`] then.
    pub async fn wait_for_prompt(
        &mut self,
        within: Duration,
        pred: impl Fn(&Message) -> bool,
    ) -> Result<Received, WaitError> {
        const QUIET: Duration = Duration::from_millis(250);
        let before = self.violation_count();
        let base = Instant::now() + within;
        loop {
            let slice = self
                .extended(base)
                .saturating_duration_since(Instant::now())
                .min(QUIET);
            match self.wait_for(slice, &pred).await {
                Err(WaitError::Timeout) if Instant::now() < self.extended(base) => {
                    if self.violation_count() > before {
                        return Err(WaitError::Invalid);
                    }
                }
                other => return other,
            }
        }
    }

    /// Messages received after `since_ms` that satisfy `pred`, consumed.
    pub fn drain_since(&mut self, since_ms: u64, pred: impl Fn(&Message) -> bool) -> Vec<Received> {
        let (hit, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.inbox)
            .into_iter()
            .partition(|r| r.at_ms >= since_ms && pred(&r.msg));
        self.inbox = keep;
        hit
    }

    /// Waits up to `within` for the target to exit.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        while self.exit.is_none() && !self.flooded {
            if !self.pump(deadline).await && Instant::now() >= deadline {
                break;
            }
        }
        self.exit.clone()
    }

    /// Ends the case: kills a stdio target's process group (noted in the
    /// transcript when it was still running); ends an HTTP session properly
    /// first (DELETE, bounded), keeping its record.
    pub async fn end(&mut self) {
        match &self.proc {
            Connection::Stdio(_) => {
                if self.exit.is_none() {
                    self.note("harness killed the target's process group");
                }
            }
            Connection::Http(_) | Connection::Sse(_) => {
                if self.exit.is_none() {
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

/// Raw bytes for the transcript: verbatim when they are one line of plain
/// text (as a message would be shown), escaped otherwise so that newlines,
/// CRs and invalid UTF-8 stay visible.
fn raw_text(bytes: &[u8]) -> String {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    match std::str::from_utf8(body) {
        Ok(t) if !t.is_empty() && !t.contains(char::is_control) => t.to_owned(),
        _ => format!("[raw] {}", String::from_utf8_lossy(bytes).escape_debug()),
    }
}

#[cfg(test)]
mod tests {
    use super::raw_text;

    #[test]
    fn raw_frames_are_shown_plainly_unless_they_hide_something() {
        assert_eq!(raw_text(b"{\"a\":1}\n"), "{\"a\":1}");
        assert_eq!(raw_text(b"{\"a\":\n1}\n"), r#"[raw] {\"a\":\n1}\n"#);
        assert_eq!(raw_text(b"\n"), r"[raw] \n");
        assert!(raw_text(b"\xff\n").starts_with("[raw] "));
    }
}
