//! One MCP session with the target (tokio), over stdio or HTTP: connect,
//! handshake, learn what the target offers, then one exec per input.
//!
//! ```text
//!  stdio  exec n:  input bytes (flushed chunk by chunk) ─► ping "mcpspec-ping-k" ─► wait for its answer
//!                  (Session::send: up to a window of inputs in flight, each with its ping: pipe.rs)
//!  HTTP   exec n:  POST each body of the input ─► wait for its status (bounded) ─► POST ping ─► wait for its answer
//!         every byte sent and every event received ─► the one oracle (crate::feed)
//!         every frame meanwhile: own answers consumed here, requests from the
//!         target answered (ping → {}, anything else → -32601), progress noted;
//!         the oracle's violations, with each frame and each POST's exchange,
//!         go to the session's Judge (fuzz policy: what the inputs owe and allow)
//!  verdicts: exit / session gone ⇒ alive; no ping answer within the timeout ⇒ ping;
//!            judge's verdicts
//!  waits:    any frame is a sign of life; an owed request waited for to --max-wait
//!            ⇒ cancelled and noted (a timeout, not a finding: `wait`)
//! ```
//!
//! The ping is the liveness check and the synchronisation point, so one
//! process (or one HTTP session) serves every input until an oracle trips.
//! Over HTTP the session is gone ("alive" trips) when a POST of the driver's
//! own cannot reach the server (refused, reset), when it is answered 404
//! (the session ended), or when the legacy event stream ends; the server is
//! then *unreachable* if the connection itself failed ([`Session::unreachable`]).
//! Over HTTP each POST waits for the previous one's status, so the server
//! sees the input before the ping and `notifications/initialized` before
//! anything else.

use std::collections::HashMap;
use std::time::Duration;

use mcpspec_engine::{ids, Role, Version};
use mcpspec_transport::{Connection, Event, Transport, Via};
use mcpspec_wire::{classify, Id, Inbound, Message};
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::expect::{Ctx as ExpectCtx, Expect};
use crate::feed::Feed;
use crate::gen::mcp::initialize_params;
use crate::gen::Knowledge;
use crate::input::{Framing, Input};
use crate::memory::rss_kib;
pub use crate::memory::{memory_verdict, DEFAULT_RSS_GROWTH_KIB, MEMORY_GROWTH};
use crate::oracle::{Judge, Oracle, TimedOut, Verdict};
use crate::post::{posts, Shape};
use crate::target::Target;

mod call;
mod discover;
mod http;
mod pipe;
mod wait;

pub use pipe::DEFAULT_WINDOW;

use http::Sent;

/// How to run one session.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub target: Target,
    /// The version asked for in `initialize`.
    pub version: Version,
    /// Wait for the sync ping this long; an owed answer may go this long
    /// without a sign of life from the target ([`crate::oracle::wait`]).
    pub timeout: Duration,
    /// Wait for an owed answer (and the driver's own lists) at most this long.
    pub max_wait: Duration,
    pub max_line: usize,
    /// Resident memory growth (KiB) over the reading after the handshake
    /// that counts as a finding (stdio only: the process is ours).
    pub rss_growth_kib: u64,
}

/// The handshake did not complete.
#[derive(Debug)]
pub struct HandshakeError {
    /// An oracle that tripped on the way (the target exited, or never answered).
    pub verdict: Option<Verdict>,
    pub message: String,
}

/// A live session.
pub struct Session {
    conn: Connection,
    framing: Framing,
    pid: Option<u32>,
    /// The one oracle, fed everything that crosses the connection.
    feed: Feed,
    pub judge: Judge,
    version: Version,
    timeout: Duration,
    max_wait: Duration,
    /// Requests waited for to the end without an answer: notes, not findings.
    timed_out: Vec<TimedOut>,
    seq: u64,
    /// Answers the driver waits for itself: id → answer (once it came).
    own: HashMap<Id, Option<Message>>,
    pub initialized: bool,
    pub capabilities: Option<Value>,
    pub know: Knowledge,
    exit: Option<String>,
    /// Set when the connection itself failed (the server went away).
    unreachable: Option<String>,
    stderr: Vec<String>,
    /// Verdicts seen while the driver waited for its own answers (the
    /// handshake, the lists), reported with the next exec.
    carry: Vec<Verdict>,
    /// HTTP: POSTs sent, and what those not yet recorded carried.
    posts: u64,
    pending: HashMap<u64, Sent>,
    /// HTTP: the status of the last own POST that was refused (≥ 400).
    own_refused: Option<u16>,
    /// Stdio: the inputs in flight ([`Session::send`]).
    window: pipe::Window,
}

/// How long the handshake waits on after broken output before giving up.
const BROKEN_ANSWER_QUIET: Duration = Duration::from_millis(250);

/// The message kind of an unanswered ping before initialize.
pub const PING_BEFORE_INIT: &str = "ping before initialize";

/// How long the answer to `initialize` may take at least.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// How long the driver waits for an own POST's answer once the POST was refused.
const REFUSED_QUIET: Duration = Duration::from_millis(200);

impl Session {
    /// Connects to the target (a new process or HTTP session; no handshake yet).
    pub async fn connect(cfg: &SessionConfig) -> Result<Self, String> {
        let conn = cfg
            .target
            .connect(cfg.max_line, crate::target::SSE_STARTUP)
            .await?;
        let pid = match &conn {
            Connection::Stdio(p) => p.pid(),
            _ => None,
        };
        let framing = crate::target::framing(&cfg.target);
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        let judge = Judge::new(ms(cfg.timeout)).max_wait(ms(cfg.max_wait));
        let transport = match framing {
            Framing::Ndjson => Transport::Stdio,
            Framing::HttpBody { streamable: true } => Transport::Http,
            Framing::HttpBody { streamable: false } => Transport::Sse,
        };
        Ok(Session {
            conn,
            framing,
            pid,
            feed: Feed::new(Role::Server, cfg.version, transport),
            judge: if framing.is_http() {
                judge.over_http()
            } else {
                judge
            },
            version: cfg.version,
            timeout: cfg.timeout,
            max_wait: cfg.max_wait,
            timed_out: Vec::new(),
            seq: 0,
            own: HashMap::new(),
            initialized: false,
            capabilities: None,
            know: Knowledge::default(),
            exit: None,
            unreachable: None,
            stderr: Vec::new(),
            carry: Vec::new(),
            posts: 0,
            pending: HashMap::new(),
            own_refused: None,
            window: pipe::Window::default(),
        })
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// Resident memory of the target, when its pid is known (stdio only).
    pub fn rss_kib(&self) -> Option<u64> {
        self.pid.and_then(rss_kib)
    }

    /// The last lines the target wrote to stderr.
    pub fn stderr_tail(&self) -> &[String] {
        &self.stderr
    }

    /// Why the server could not be reached any more (HTTP), if it could not.
    pub fn unreachable(&self) -> Option<&str> {
        self.unreachable.as_deref()
    }

    /// What expectations are derived in, for this session's state.
    pub fn expect_ctx(&self) -> ExpectCtx<'_> {
        ExpectCtx {
            version: self.version,
            initialized: self.initialized,
            capabilities: self.capabilities.as_ref(),
            framing: self.framing,
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.conn.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// After a failed write: wait briefly for the exit to be reported.
    async fn settle_exit(&mut self, verdicts: &mut Vec<Verdict>) {
        let deadline = Instant::now() + Duration::from_millis(500);
        while self.exit.is_none() && self.pump(deadline, verdicts).await {}
        let how = if self.framing.is_http() {
            "the HTTP session could not be used any more"
        } else {
            "the target closed its stdin"
        };
        self.ended(how.to_owned(), false, verdicts);
    }

    fn alive_verdict(&self) -> Verdict {
        let how = self.exit.clone().unwrap_or_default();
        // With inputs in flight, the target died on the one it was reading;
        // the requests after it had not reached it.
        let upto = self.reading();
        let (req, what) = if self.judge.oldest_owed_upto(upto).is_some() {
            (
                &ids::JSONRPC_REQUEST_ANSWERED,
                "with a valid request unanswered",
            )
        } else {
            (&ids::JSONRPC_ROBUSTNESS_SURVIVES_INVALID, "")
        };
        let v = Verdict::new(
            Oracle::Alive,
            req,
            format!("{how} {what}").trim_end().to_owned(),
            upto,
        );
        match self.judge.oldest_owed_upto(upto) {
            // What it died on is better known than the input's kind.
            Some(method) => v.about(format!("request {method}")),
            None => v,
        }
    }

    /// The session ended (`how`); `gone`: the server itself could not be reached.
    fn ended(&mut self, how: String, gone: bool, verdicts: &mut Vec<Verdict>) {
        if self.exit.is_none() {
            self.note_end();
            if gone {
                self.unreachable = Some(how.clone());
            }
            self.exit = Some(how);
            verdicts.push(self.alive_verdict());
        }
    }

    /// Receives one event before `deadline` and handles it. False on timeout
    /// or once the target has exited (or the HTTP session ended).
    async fn pump(&mut self, deadline: Instant, verdicts: &mut Vec<Verdict>) -> bool {
        if self.exit.is_some() {
            return false;
        }
        match tokio::time::timeout_at(deadline, self.conn.recv()).await {
            Err(_) => false,
            Ok(ev) => self.handle(ev, verdicts).await,
        }
    }

    /// Handles one event if one has arrived already, without waiting (and
    /// without a timer: a timer of "now" still waits for the next tick).
    /// False when none had, or once the target has exited.
    async fn pump_ready(&mut self, verdicts: &mut Vec<Verdict>) -> bool {
        if self.exit.is_some() {
            return false;
        }
        let ready = {
            let mut next = std::pin::pin!(self.conn.recv());
            std::future::poll_fn(|cx| {
                std::task::Poll::Ready(std::future::Future::poll(next.as_mut(), cx))
            })
            .await
        };
        match ready {
            std::task::Poll::Pending => false,
            std::task::Poll::Ready(ev) => self.handle(ev, verdicts).await,
        }
    }

    /// Handles one received event (`None`: the output ended). False once
    /// the target has exited (or the HTTP session ended).
    async fn handle(
        &mut self,
        ev: Option<mcpspec_transport::Stamped>,
        verdicts: &mut Vec<Verdict>,
    ) -> bool {
        let (via, ev, at) = match ev {
            None => {
                self.ended("the target's output ended".to_owned(), false, verdicts);
                return false;
            }
            Some(ev) => (ev.via, ev.event, ev.at),
        };
        let at_ms = u64::try_from(at.as_millis()).unwrap_or(u64::MAX);
        let found = self.feed.received(at_ms, via, &ev);
        if let (Event::Frame(_) | Event::FrameError(_), Some(exec)) = (&ev, self.reading()) {
            self.judge.reading(exec);
        }
        match &ev {
            Event::Frame(f) => {
                self.judge.alive(at_ms);
                verdicts.extend(self.judge.frame(via, &f.bytes, found));
                if let Ok(Inbound::Single(msg)) = classify(&f.bytes) {
                    self.consume(&msg).await;
                }
            }
            Event::FrameError(_) | Event::SseEvent { .. } | Event::SseError(_) => {
                verdicts.extend(self.judge.event(via, found));
            }
            Event::Stderr(line) | Event::Stdout(line) => {
                if self.stderr.len() >= 5 {
                    self.stderr.remove(0);
                }
                self.stderr.push(line.clone());
            }
            Event::Exited { code, signal } => {
                let how = match (code, signal) {
                    (Some(c), _) => format!("the target exited with code {c}"),
                    (None, Some(s)) => format!("the target was killed by signal {s}"),
                    (None, None) => "the target exited".to_owned(),
                };
                self.ended(how, false, verdicts);
                return false;
            }
            Event::Http(record) => {
                if let Via::Post(n) = via {
                    self.recorded(n, record, found, verdicts);
                    if self.exit.is_some() {
                        return false;
                    }
                }
            }
            Event::Closed(why) => {
                let gone = why.starts_with("could not connect");
                let how = match via {
                    Via::Legacy => format!("the SSE stream ended ({why})"),
                    _ => format!("the session ended ({why})"),
                };
                self.ended(how, gone, verdicts);
                return false;
            }
        }
        true
    }

    /// Handles what is the driver's own business (its own answers, the
    /// target's requests, progress).
    async fn consume(&mut self, msg: &Message) {
        match msg {
            Message::Response(r) => {
                if let Some(slot @ None) = r.id.as_ref().and_then(|id| self.own.get_mut(id)) {
                    *slot = Some(msg.clone());
                }
            }
            Message::Request(r) => {
                let answer = if r.method == "ping" {
                    Message::result(r.id.clone(), json!({}))
                } else {
                    Message::error(Some(r.id.clone()), -32601, "method not found", None)
                };
                let mut line = answer.to_json();
                if !self.framing.is_http() {
                    line.push('\n');
                }
                let _ = self.write(line.as_bytes(), Sent::Own).await;
            }
            Message::Notification(n) => {
                if n.method == "notifications/progress" {
                    if let Some(t) = n.params.as_ref().and_then(|p| p.get("progressToken")) {
                        let now = self.now_ms();
                        self.judge.progress(t, now);
                    }
                }
            }
        }
    }

    /// `initialize`, `notifications/initialized`, then the first page of the
    /// target's tools, prompts and resources.
    pub async fn handshake(&mut self) -> Result<(), HandshakeError> {
        let params = initialize_params(self.version.as_str());
        let answer = self
            .call("init", "initialize", Some(params))
            .await
            .map_err(|v| HandshakeError {
                message: v.first().map_or_else(
                    || self.exit.clone().unwrap_or_default(),
                    |v| v.detail.clone(),
                ),
                verdict: v.into_iter().next(),
            })?;
        let result = match answer {
            Message::Response(r) => r.outcome.map_err(|e| HandshakeError {
                verdict: None,
                message: format!("initialize was refused: {} {}", e.code, e.message),
            })?,
            _ => Value::Null,
        };
        if let Some(v) = result.get("protocolVersion").and_then(Value::as_str) {
            match v.parse::<Version>() {
                Ok(v) if v != Version::V2026_07_28 => self.version = v,
                _ => {
                    return Err(HandshakeError {
                        verdict: None,
                        message: format!("the target answered initialize with protocol version {v:?}, which mcpspec cannot fuzz"),
                    })
                }
            }
        }
        self.feed.settle(self.version);
        if self.framing == (Framing::HttpBody { streamable: true }) {
            self.conn
                .set_protocol_version(Some(self.version.as_str().to_owned()));
        }
        self.capabilities = result.get("capabilities").cloned();
        let mut line = Message::notification("notifications/initialized", None).to_json();
        self.judge.handshake_notification();
        let sent = Sent::Judged {
            exec: None,
            shape: Shape::Quiet,
            ids: Vec::new(),
        };
        if self.framing.is_http() {
            if let Ok(n) = self.write(line.as_bytes(), sent).await {
                let mut verdicts = Vec::new();
                let deadline = Instant::now() + self.timeout;
                self.await_record(n, deadline, &mut verdicts).await;
                self.carry.append(&mut verdicts);
            }
        } else {
            line.push('\n');
            let _ = self.write(line.as_bytes(), sent).await;
        }
        self.initialized = true;
        self.discover().await.map_err(|v| HandshakeError {
            message: v.first().map_or_else(String::new, |v| v.detail.clone()),
            verdict: v.into_iter().next(),
        })
    }

    /// Sends one input and the sync ping; returns what tripped.
    pub async fn exec(&mut self, exec: u64, input: &Input, expects: &[Expect]) -> Vec<Verdict> {
        let now = self.now_ms();
        self.judge.sent(exec, expects, now);
        let mut verdicts = Vec::new();
        if self.framing.is_http() {
            for post in posts(input, self.expect_ctx()) {
                let ids = post
                    .expects
                    .iter()
                    .filter_map(|e| match e {
                        Expect::Owed { id, .. } => Some(id.clone()),
                        _ => None,
                    })
                    .collect();
                let sent = Sent::Judged {
                    exec: Some(exec),
                    shape: post.shape,
                    ids,
                };
                let Ok(n) = self.write(&post.body, sent).await else {
                    self.settle_exit(&mut verdicts).await;
                    return attribute(verdicts, exec);
                };
                let deadline = Instant::now() + self.timeout;
                self.await_record(n, deadline, &mut verdicts).await;
                if self.exit.is_some() {
                    return attribute(verdicts, exec);
                }
            }
            return self.sync(verdicts, &[], exec).await;
        }
        let mut chunks = input.chunks();
        let last = chunks.pop().unwrap_or_default();
        for chunk in &chunks {
            if self.write(chunk, Sent::Own).await.is_err() {
                self.settle_exit(&mut verdicts).await;
                return attribute(verdicts, exec);
            }
            // Separate writes; give the target a chance to read each on its own.
            tokio::task::yield_now().await;
        }
        self.sync(verdicts, &last, exec).await
    }

    /// Verdicts seen while the driver waited for its own answers.
    pub fn take_carry(&mut self) -> Vec<Verdict> {
        std::mem::take(&mut self.carry)
    }

    /// True once the target has exited.
    pub fn exited(&self) -> bool {
        self.exit.is_some()
    }

    /// Ends the session: kills the process; over HTTP ends the MCP session
    /// properly (DELETE, bounded; the legacy stream closed) unless it is gone.
    pub async fn end(&mut self) {
        if self.framing.is_http() && self.exit.is_none() {
            self.conn.close().await;
        }
        self.conn.kill();
    }
}

/// Verdicts without an exec of their own belong to the exec that saw them
/// (the client driver's too, once its verdicts are adapted to clients).
pub(crate) fn attribute(mut verdicts: Vec<Verdict>, exec: u64) -> Vec<Verdict> {
    for v in &mut verdicts {
        if v.exec.is_none() {
            v.exec = Some(exec);
        }
    }
    verdicts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_belong_to_the_exec_that_saw_them_unless_they_know_better() {
        let seen = Verdict::new(Oracle::Ping, &ids::PING_RESPOND, String::new(), None);
        let own = Verdict::new(
            Oracle::Unanswered,
            &ids::JSONRPC_REQUEST_ANSWERED,
            String::new(),
            Some(2),
        );
        let v = attribute(vec![seen, own], 9);
        assert_eq!((v[0].exec, v[1].exec), (Some(9), Some(2)));
    }
}
