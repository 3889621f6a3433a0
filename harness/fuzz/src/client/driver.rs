//! One session with a client under test (tokio): start it, serve its
//! handshake, then one exec per input.
//!
//! ```text
//!  handshake: wait for initialize (server/discover ─► -32601; pings answered)
//!             ─► the fixture's result at the chosen version
//!             ─► wait for notifications/initialized, then briefly for the request to hold
//!  exec n:    input bytes (flushed chunk by chunk) ─► ping "mcpspec-ping-k" ─► wait for its answer
//!             every byte sent and every event received ─► the one oracle (crate::feed)
//!             every frame meanwhile: answers to our pings consumed here; the client's
//!             requests and notifications go to the fixture; the oracle's violations,
//!             with each frame, go to the Judge (fuzz policy)
//!  verdicts:  exit / closed link, with its request held, an input's request owed or a
//!             failure status ⇒ alive;  no ping answer within the timeout ⇒ ping;
//!             the judge's verdicts, adapted to clients ([`super::expect::client_verdicts`])
//! ```
//!
//! A client that exits with status 0 while nothing of it is held, or that
//! cancels the held request itself, has ended its session: no finding, and
//! the loop starts a fresh one ([`ClientSession::wound_down`]).

use std::collections::HashMap;
use std::time::Duration;

use mcpspec_engine::{ids, Lifecycle, Role, Version};
use mcpspec_transport::{Connection, Event, Transport, Via};
use mcpspec_wire::{classify, Id, Inbound, Message, Request};
use serde_json::{json, Value};
use tokio::time::Instant;

use super::expect::client_verdicts;
use super::fixture::{Fixture, Served};
use crate::driver::attribute;
use crate::driver::HandshakeError;
use crate::expect::{notifications_only, Expect};
use crate::feed::Feed;
use crate::input::Input;
use crate::oracle::{Judge, Oracle, TimedOut, Verdict};
use crate::target::Target;

/// The message kind of sync ping findings: one finding, whatever the input.
pub const SYNC_PING: &str = "sync ping";

/// How long a client may take to send `initialize` at least.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the handshake waits for the request to hold, once initialized.
const HOLD_WAIT: Duration = Duration::from_millis(500);

/// How much of each stderr line is kept for reports.
const TAIL_CHARS: usize = 200;

/// How long the exit status is awaited once the client closed its link.
const EXIT_WAIT: Duration = Duration::from_millis(800);

/// How to run one session.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// A [`Target::Client`] over stdio (`{server}`).
    pub target: Target,
    /// The version to answer `initialize` with; `None`: the one the client
    /// asks for when it has the handshake, else the newest that has.
    pub version: Option<Version>,
    /// Wait for the sync ping this long; an owed answer may go this long
    /// without a sign of life from the client ([`crate::oracle::wait`]).
    pub timeout: Duration,
    /// Wait for an owed answer at most this long.
    pub max_wait: Duration,
    pub max_line: usize,
}

/// A live session with a client.
pub struct ClientSession {
    conn: Connection,
    fixture: Fixture,
    /// The one oracle, fed everything that crosses the connection.
    feed: Feed,
    pub judge: Judge,
    version: Version,
    forced: Option<Version>,
    capabilities: Value,
    timeout: Duration,
    /// Requests waited for to the end without an answer: notes, not findings.
    timed_out: Vec<TimedOut>,
    seq: u64,
    /// Our pings: id → answer (once it came).
    own: HashMap<Id, Option<Message>>,
    /// The client's `initialize`, until the handshake takes it.
    init: Option<Request>,
    init_answered: bool,
    initialized: bool,
    frames: u64,
    exit: Option<String>,
    /// The client ended its session cleanly, or cancelled the held request.
    wound_down: bool,
    stderr: Vec<String>,
    carry: Vec<Verdict>,
    /// The input of the current exec was made of notifications only.
    notifications_only: bool,
}

impl ClientSession {
    /// Starts the client (nothing is exchanged yet).
    pub async fn connect(cfg: &SessionConfig) -> Result<Self, String> {
        let conn = cfg.target.connect(cfg.max_line, STARTUP_TIMEOUT).await?;
        let version = cfg.version.unwrap_or(Version::LATEST_HANDSHAKE);
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        Ok(ClientSession {
            conn,
            fixture: Fixture::new(),
            feed: Feed::new(Role::Client, version, Transport::Stdio),
            judge: Judge::new(ms(cfg.timeout)).max_wait(ms(cfg.max_wait)),
            version,
            forced: cfg.version,
            capabilities: json!({}),
            timeout: cfg.timeout,
            timed_out: Vec::new(),
            seq: 0,
            own: HashMap::new(),
            init: None,
            init_answered: false,
            initialized: false,
            frames: 0,
            exit: None,
            wound_down: false,
            stderr: Vec::new(),
            carry: Vec::new(),
            notifications_only: false,
        })
    }

    /// The version the session speaks (the one `initialize` was answered with).
    pub fn version(&self) -> Version {
        self.version
    }

    /// The capabilities the client declared in `initialize`.
    pub fn capabilities(&self) -> &Value {
        &self.capabilities
    }

    /// The last lines the client wrote to stderr (or its own stdout).
    pub fn stderr_tail(&self) -> &[String] {
        &self.stderr
    }

    /// The request held, as `method (id …)`.
    pub fn held(&self) -> Option<String> {
        self.fixture
            .held()
            .map(|(id, method)| format!("{method} (id {id})"))
    }

    /// True once the client is gone.
    pub fn exited(&self) -> bool {
        self.exit.is_some()
    }

    /// The client ended its session without a finding (status 0 with
    /// nothing held, or it cancelled the held request): start a fresh one.
    pub fn wound_down(&self) -> bool {
        self.wound_down
    }

    /// Verdicts seen during the handshake.
    pub fn take_carry(&mut self) -> Vec<Verdict> {
        std::mem::take(&mut self.carry)
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.conn.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Serves the client's opening: its `initialize` answered by the
    /// fixture, `notifications/initialized` and the request to hold awaited.
    pub async fn handshake(&mut self) -> Result<(), HandshakeError> {
        let mut verdicts = Vec::new();
        let deadline = Instant::now() + self.timeout.max(STARTUP_TIMEOUT);
        while self.init.is_none() && self.pump(deadline, &mut verdicts).await {}
        let Some(init) = self.init.take() else {
            let message = match &self.exit {
                Some(how) => format!("the client ended before sending initialize ({how})"),
                None if self.frames == 0 => format!(
                    "the client sent nothing within {} ms: did it start, and run the server it was given ({{server}})?",
                    self.timeout.max(STARTUP_TIMEOUT).as_millis()
                ),
                None => "the client sent no initialize".to_owned(),
            };
            return Err(HandshakeError {
                verdict: None,
                message,
            });
        };
        let params = init.params.clone().unwrap_or(Value::Null);
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        self.version = self.forced.unwrap_or_else(|| {
            asked
                .and_then(|a| a.parse::<Version>().ok())
                .filter(|v| v.lifecycle() == Lifecycle::Handshake)
                .unwrap_or(Version::LATEST_HANDSHAKE)
        });
        self.capabilities = params
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        self.feed.settle(self.version);
        let now = self.now_ms();
        let lines = self.fixture.initialize(now, &init, self.version);
        self.init_answered = true;
        self.write_lines(lines).await;
        let deadline = Instant::now() + self.timeout;
        while !self.initialized && self.pump(deadline, &mut verdicts).await {}
        let deadline = Instant::now() + self.timeout.min(HOLD_WAIT);
        while self.fixture.held().is_none() && self.pump(deadline, &mut verdicts).await {}
        let verdicts = client_verdicts(verdicts, false, &self.capabilities);
        if let Some(how) = &self.exit {
            return Err(HandshakeError {
                message: format!(
                    "the client ended its session during the handshake ({how}); mcpspec fuzz \
                     client holds the client's first request to keep it connected, and got none"
                ),
                verdict: verdicts.into_iter().next(),
            });
        }
        self.carry = verdicts;
        Ok(())
    }

    /// Sends one input and the sync ping; returns what tripped.
    pub async fn exec(&mut self, exec: u64, input: &Input, expects: &[Expect]) -> Vec<Verdict> {
        let now = self.now_ms();
        self.judge.sent(exec, expects, now);
        self.notifications_only = notifications_only(expects);
        let mut verdicts = Vec::new();
        let mut chunks = input.chunks();
        let last = chunks.pop().unwrap_or_default();
        for chunk in &chunks {
            if self.send(chunk).await.is_err() {
                self.settle_exit(&mut verdicts).await;
                return self.finish(verdicts, exec);
            }
            // Separate writes: give the client a chance to read each on its own.
            tokio::task::yield_now().await;
        }
        self.ping(&last, &mut verdicts).await;
        verdicts.append(&mut self.carry);
        self.expire().await;
        self.finish(verdicts, exec)
    }

    /// A sync ping on its own (a sequence without inputs): the liveness
    /// check of a client that is sent nothing else.
    pub async fn bare_ping(&mut self) -> Vec<Verdict> {
        let mut verdicts = Vec::new();
        self.ping(&[], &mut verdicts).await;
        client_verdicts(verdicts, false, &self.capabilities)
    }

    fn finish(&self, verdicts: Vec<Verdict>, exec: u64) -> Vec<Verdict> {
        let verdicts = client_verdicts(verdicts, self.notifications_only, &self.capabilities);
        attribute(verdicts, exec)
    }

    /// Writes `prefix` and a ping in one write, then waits for the answer.
    async fn ping(&mut self, prefix: &[u8], verdicts: &mut Vec<Verdict>) {
        self.seq += 1;
        let id = Id::String(format!("mcpspec-ping-{}", self.seq));
        self.own.insert(id.clone(), None);
        let mut bytes = prefix.to_vec();
        bytes.extend_from_slice(
            Message::request(id.clone(), "ping", None)
                .to_json()
                .as_bytes(),
        );
        bytes.push(b'\n');
        if self.send(&bytes).await.is_err() {
            self.settle_exit(verdicts).await;
            return;
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            if let Some(Some(answer)) = self.own.get(&id) {
                if let Message::Response(r) = answer {
                    if let Err(e) = &r.outcome {
                        let detail = format!("the sync ping was answered with error {}", e.code);
                        verdicts.push(
                            Verdict::new(Oracle::Ping, &ids::PING_RESPOND, detail, None)
                                .about(SYNC_PING.to_owned()),
                        );
                    }
                }
                self.own.remove(&id);
                return;
            }
            if self.exit.is_some() {
                return;
            }
            if !self.pump(deadline, verdicts).await {
                self.own.remove(&id);
                if self.exit.is_none() {
                    let detail = format!(
                        "the sync ping was not answered within {} ms",
                        self.timeout.as_millis()
                    );
                    verdicts.push(
                        Verdict::new(Oracle::Ping, &ids::PING_RESPOND, detail, None)
                            .about(SYNC_PING.to_owned()),
                    );
                }
                return;
            }
        }
    }

    /// Waits for every owed answer: as long as the client shows signs of
    /// life (asked with a ping when it is silent for a timeout), up to the
    /// bound ([`crate::oracle::wait`]); returns what tripped.
    pub async fn drain(&mut self) -> Vec<Verdict> {
        self.drain_until(None).await
    }

    /// [`ClientSession::drain`], waiting no later than `cutoff` (the end of the
    /// run's `--duration` and a timeout of grace): what is still owed then
    /// is given up as at `--max-wait` (noted, cancelled).
    pub async fn drain_until(&mut self, cutoff: Option<Instant>) -> Vec<Verdict> {
        let mut verdicts = Vec::new();
        while self.judge.owed() > 0 && self.exit.is_none() {
            self.expire().await;
            let Some(due) = self.judge.next_deadline() else {
                break;
            };
            let wait = Duration::from_millis(due.saturating_sub(self.now_ms()) + 1);
            let mut deadline = Instant::now() + wait;
            if let Some(c) = cutoff {
                deadline = deadline.min(c);
            }
            while self.pump(deadline, &mut verdicts).await && self.judge.owed() > 0 {}
            if cutoff.is_some_and(|c| Instant::now() >= c) {
                let now = self.now_ms();
                let late = self.judge.abandon(now);
                self.give_up(late).await;
                break;
            }
            if self.exit.is_none() && self.judge.quiet(self.now_ms()) {
                let before = verdicts.len();
                self.ping(&[], &mut verdicts).await;
                if verdicts.len() > before {
                    break; // not even a ping answered: that is the finding
                }
            }
        }
        self.expire().await;
        client_verdicts(verdicts, false, &self.capabilities)
    }

    /// Owed requests waited for to the bound: noted, cancelled as a sender
    /// should, and no longer waited for.
    async fn expire(&mut self) {
        let now = self.now_ms();
        let late = self.judge.overdue(now);
        self.give_up(late).await;
    }

    /// Stops waiting for requests, as a sender should: each cancelled and noted.
    async fn give_up(&mut self, late: Vec<TimedOut>) {
        for t in late {
            if let Some(cancel) = t.cancellation() {
                let mut line = cancel.to_json().into_bytes();
                line.push(b'\n');
                let _ = self.send(&line).await;
            }
            self.timed_out.push(t);
        }
    }

    /// The requests waited for to the end without an answer since the
    /// last call: notes of the run, not findings.
    pub fn take_timeouts(&mut self) -> Vec<TimedOut> {
        std::mem::take(&mut self.timed_out)
    }

    /// Kills the client (its process group, the shim with it).
    pub async fn end(&mut self) {
        self.conn.kill();
    }

    /// After a failed write: wait briefly for the exit to be reported.
    async fn settle_exit(&mut self, verdicts: &mut Vec<Verdict>) {
        let deadline = Instant::now() + EXIT_WAIT;
        while self.exit.is_none() && self.pump(deadline, verdicts).await {}
        self.ended(
            "the client's connection could not be written to".to_owned(),
            None,
            verdicts,
        );
    }

    /// The client went away (`how`; `failed`: with a failure status, `None`
    /// when unknown).
    fn ended(&mut self, how: String, failed: Option<bool>, verdicts: &mut Vec<Verdict>) {
        if self.exit.is_some() {
            return;
        }
        let held = if self.wound_down { None } else { self.held() };
        let owed = self.judge.anything_owed();
        if failed != Some(true) && held.is_none() && !owed {
            // Its session is over: nothing of it was waiting, and it did not fail.
            self.exit = Some(how);
            self.wound_down = true;
            return;
        }
        let (requirement, what) = if owed {
            (
                &ids::JSONRPC_REQUEST_ANSWERED,
                "with a valid request unanswered".to_owned(),
            )
        } else {
            (
                &ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID,
                held.map_or_else(String::new, |h| {
                    format!("while the harness held its request {h}")
                }),
            )
        };
        let v = Verdict::new(
            Oracle::Alive,
            requirement,
            format!("{how} {what}").trim_end().to_owned(),
            None,
        );
        verdicts.push(match self.judge.oldest_owed() {
            Some(method) => v.about(format!("request {method}")),
            None => v,
        });
        self.exit = Some(how);
    }

    /// The link to the client ended: wait briefly for its exit status.
    async fn link_closed(&mut self, why: String, verdicts: &mut Vec<Verdict>) {
        let deadline = Instant::now() + EXIT_WAIT;
        while let Ok(Some(ev)) = tokio::time::timeout_at(deadline, self.conn.recv()).await {
            // Only the exit and the client's own lines can follow a closed link.
            let at_ms = u64::try_from(ev.at.as_millis()).unwrap_or(u64::MAX);
            let _ = self.feed.received(at_ms, ev.via, &ev.event);
            match ev.event {
                Event::Exited { code, signal } => return self.exited_with(code, signal, verdicts),
                Event::Stderr(line) | Event::Stdout(line) => self.tail(line),
                _ => {}
            }
        }
        self.ended(
            format!("the client closed its connection ({why})"),
            None,
            verdicts,
        );
    }

    fn exited_with(&mut self, code: Option<i32>, signal: Option<i32>, verdicts: &mut Vec<Verdict>) {
        let how = match (code, signal) {
            (Some(c), _) => format!("the client exited with status {c}"),
            (None, Some(s)) => format!("the client was killed by signal {s}"),
            (None, None) => "the client exited".to_owned(),
        };
        self.ended(how, Some(code != Some(0)), verdicts);
    }

    /// Keeps the last lines the client wrote (each cut to [`TAIL_CHARS`]).
    fn tail(&mut self, line: String) {
        if self.stderr.len() >= 5 {
            self.stderr.remove(0);
        }
        let mut line = line;
        if let Some((at, _)) = line.char_indices().nth(TAIL_CHARS) {
            line.truncate(at);
            line.push('…');
        }
        self.stderr.push(line);
    }

    /// When the fixture's next timer is due, as an instant.
    fn fixture_due(&self) -> Option<Instant> {
        let due = self.fixture.next_deadline()?;
        Some(Instant::now() + Duration::from_millis(due.saturating_sub(self.now_ms())))
    }

    /// Receives one event before `deadline` and handles it. False on
    /// timeout or once the client is gone.
    async fn pump(&mut self, deadline: Instant, verdicts: &mut Vec<Verdict>) -> bool {
        if self.exit.is_some() {
            return false;
        }
        let wake = self.fixture_due().filter(|t| *t < deadline);
        let ev = match tokio::time::timeout_at(wake.unwrap_or(deadline), self.conn.recv()).await {
            Err(_) if wake.is_some() => {
                // Never before the deadline, or the same timer would fire again at once.
                let due = self.fixture.next_deadline().unwrap_or(0);
                let lines = self.fixture.tick(self.now_ms().max(due));
                self.write_lines(lines).await;
                return true;
            }
            Err(_) => return false,
            Ok(None) => {
                self.ended("the client's output ended".to_owned(), None, verdicts);
                return false;
            }
            Ok(Some(ev)) => ev,
        };
        let at_ms = u64::try_from(ev.at.as_millis()).unwrap_or(u64::MAX);
        let found = self.feed.received(at_ms, ev.via, &ev.event);
        match ev.event {
            Event::Frame(f) => {
                self.frames += 1;
                self.judge.alive(at_ms);
                verdicts.extend(self.judge.frame(Via::Stdio, &f.bytes, found));
                match classify(&f.bytes) {
                    Ok(Inbound::Single(msg)) => {
                        self.consume(&msg).await;
                    }
                    Ok(Inbound::Batch(items)) => {
                        // Requests and notifications inside are served (the
                        // array, and the answers in it, were judged above).
                        for item in items.iter().flatten() {
                            if !matches!(item, Message::Response(_)) {
                                self.consume(item).await;
                            }
                        }
                    }
                    Err(_) => {}
                }
            }
            Event::FrameError(_) => {
                self.frames += 1;
                verdicts.extend(self.judge.event(ev.via, found));
            }
            Event::Stderr(line) | Event::Stdout(line) => self.tail(line),
            Event::Exited { code, signal } => {
                self.exited_with(code, signal, verdicts);
                return false;
            }
            Event::Closed(why) => {
                self.link_closed(why, verdicts).await;
                return false;
            }
            // Not over stdio: the oracle has seen them, if they ever come.
            Event::Http(_) | Event::SseEvent { .. } | Event::SseError(_) => {
                verdicts.extend(self.judge.event(ev.via, found));
            }
        }
        true
    }

    /// Handles what is the driver's or the fixture's business.
    async fn consume(&mut self, msg: &Message) {
        let now = self.now_ms();
        match msg {
            Message::Response(r) => {
                if let Some(slot @ None) = r.id.as_ref().and_then(|id| self.own.get_mut(id)) {
                    *slot = Some(msg.clone());
                }
            }
            // The opening; a second initialize goes to the fixture, which refuses it.
            Message::Request(r)
                if r.method == "initialize" && self.init.is_none() && !self.init_answered =>
            {
                self.init = Some(r.clone());
            }
            Message::Request(r) => {
                if let Served::Lines(lines) = self.fixture.serve(now, r) {
                    self.write_lines(lines).await;
                }
            }
            Message::Notification(n) => {
                match n.method.as_str() {
                    "notifications/initialized" => self.initialized = true,
                    "notifications/progress" => {
                        if let Some(t) = n.params.as_ref().and_then(|p| p.get("progressToken")) {
                            self.judge.progress(t, now);
                        }
                    }
                    _ => {}
                }
                let (lines, gave_up) = self.fixture.notice(now, msg);
                self.wound_down |= gave_up;
                self.write_lines(lines).await;
            }
        }
    }

    /// Writes the fixture's lines; a client that is gone gets nothing.
    async fn write_lines(&mut self, lines: Vec<Vec<u8>>) {
        for line in lines {
            if self.exit.is_some() || self.send(&line).await.is_err() {
                return;
            }
        }
    }

    /// Writes bytes to the client; the oracle is told of them once
    /// delivered (observing what this side sends never yields a violation).
    async fn send(&mut self, bytes: &[u8]) -> Result<(), ()> {
        let now = self.now_ms();
        self.conn.send(bytes).await.map_err(|_| ())?;
        let _ = self.feed.sent(now, bytes);
        Ok(())
    }
}
