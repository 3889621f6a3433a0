//! One MCP session with the target over stdio (tokio): spawn, handshake,
//! learn what the target offers, then one exec per input.
//!
//! ```text
//!  exec n:  input bytes (flushed chunk by chunk) ─► ping "mcpspec-ping-k" ─► wait for its answer
//!           every frame meanwhile: own answers consumed here, requests from the
//!           target answered (ping → {}, anything else → -32601), progress noted,
//!           everything else judged by the session's Judge
//!  verdicts: exit ⇒ alive; no ping answer within the timeout ⇒ ping;
//!            judge's verdicts; owed requests past their deadline ⇒ unanswered
//! ```
//!
//! The ping is the liveness check and the synchronisation point, so one
//! process and one session serve every input until an oracle trips.

use std::collections::HashMap;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_transport::{CommandSpec, Event, SpawnError, StdioProcess};
use mcpspec_wire::{classify, Id, Inbound, Message};
use serde_json::{json, Value};
use tokio::time::Instant;

use crate::expect::Expect;
use crate::gen::mcp::initialize_params;
use crate::gen::{Knowledge, Prompt, Tool};
use crate::input::Input;
use crate::memory::rss_kib;
pub use crate::memory::{memory_verdict, DEFAULT_RSS_GROWTH_KIB, MEMORY_GROWTH};
use crate::oracle::{Judge, Oracle, Verdict};

/// How to run one session.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    pub command: CommandSpec,
    /// The version asked for in `initialize`.
    pub version: Version,
    /// Wait for each answer (the sync ping, an owed request) this long.
    pub timeout: Duration,
    pub max_line: usize,
    /// Resident memory growth (KiB) over the reading after the handshake
    /// that counts as a finding.
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
    proc: StdioProcess,
    pid: Option<u32>,
    pub judge: Judge,
    version: Version,
    timeout: Duration,
    seq: u64,
    /// Answers the driver waits for itself: id → answer (once it came).
    own: HashMap<Id, Option<Message>>,
    pub initialized: bool,
    pub capabilities: Option<Value>,
    pub know: Knowledge,
    exit: Option<String>,
    stderr: Vec<String>,
    /// Verdicts seen while the driver waited for its own answers (the
    /// handshake, the lists), reported with the next exec.
    carry: Vec<Verdict>,
}

/// How long the handshake waits on after broken output before giving up.
const BROKEN_ANSWER_QUIET: Duration = Duration::from_millis(250);

/// The message kind of an unanswered ping before initialize.
pub const PING_BEFORE_INIT: &str = "ping before initialize";

/// How long the answer to `initialize` may take at least.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

impl Session {
    /// Starts the target (no handshake yet).
    pub fn spawn(cfg: &SessionConfig) -> Result<Self, SpawnError> {
        let proc = StdioProcess::spawn(&cfg.command, cfg.max_line)?;
        let pid = proc.pid();
        let timeout_ms = u64::try_from(cfg.timeout.as_millis()).unwrap_or(u64::MAX);
        Ok(Session {
            proc,
            pid,
            judge: Judge::new(cfg.version, timeout_ms),
            version: cfg.version,
            timeout: cfg.timeout,
            seq: 0,
            own: HashMap::new(),
            initialized: false,
            capabilities: None,
            know: Knowledge::default(),
            exit: None,
            stderr: Vec::new(),
            carry: Vec::new(),
        })
    }

    pub fn version(&self) -> Version {
        self.version
    }

    /// Resident memory of the target, when its pid is known.
    pub fn rss_kib(&self) -> Option<u64> {
        self.pid.and_then(rss_kib)
    }

    /// The last lines the target wrote to stderr.
    pub fn stderr_tail(&self) -> &[String] {
        &self.stderr
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.proc.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn own_id(&mut self, what: &str) -> Id {
        self.seq += 1;
        let id = Id::String(format!("mcpspec-{what}-{}", self.seq));
        self.own.insert(id.clone(), None);
        id
    }

    async fn write(&mut self, bytes: &[u8]) -> bool {
        self.proc.send(bytes).await.is_ok()
    }

    /// Sends a request of the driver's own and waits for its answer.
    async fn call(
        &mut self,
        what: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<Message, Vec<Verdict>> {
        self.call_after(&[], what, method, params).await
    }

    /// Like [`Session::call`], with `prefix` written in the same write (one
    /// system call for an input and its sync ping).
    async fn call_after(
        &mut self,
        prefix: &[u8],
        what: &str,
        method: &str,
        params: Option<Value>,
    ) -> Result<Message, Vec<Verdict>> {
        let id = self.own_id(what);
        let mut bytes = prefix.to_vec();
        bytes.extend_from_slice(
            Message::request(id.clone(), method, params)
                .to_json()
                .as_bytes(),
        );
        bytes.push(b'\n');
        let mut verdicts = Vec::new();
        if !self.write(&bytes).await {
            self.settle_exit(&mut verdicts).await;
        }
        // A target may take a while to start (`npx`, a JIT): the first
        // answer gets more time than the others.
        let within = if method == "initialize" {
            self.timeout.max(STARTUP_TIMEOUT)
        } else {
            self.timeout
        };
        let mut deadline = Instant::now() + within;
        let mut shortened = false;
        loop {
            // The handshake is answered at once: once the target has written
            // something broken and then stays quiet, that was its answer.
            if method == "initialize" && !shortened && !verdicts.is_empty() {
                shortened = true;
                deadline = deadline.min(Instant::now() + BROKEN_ANSWER_QUIET);
            }
            if let Some(Some(m)) = self.own.get(&id) {
                let m = m.clone();
                self.own.remove(&id);
                self.carry.append(&mut verdicts);
                return Ok(m);
            }
            if self.exit.is_some() {
                return Err(verdicts);
            }
            if !self.pump(deadline, &mut verdicts).await {
                self.own.remove(&id);
                if self.exit.is_some() {
                    return Err(verdicts);
                }
                let v = if method == "ping" && !self.initialized {
                    // Before initialize, answering ping is a SHOULD.
                    Verdict::new(
                        Oracle::Ping,
                        "lifecycle.server.ping-before-init",
                        format!(
                            "a ping before initialize was not answered within {} ms",
                            self.timeout.as_millis()
                        ),
                        None,
                    )
                    .about(PING_BEFORE_INIT.to_owned())
                } else if method == "ping" {
                    Verdict::new(
                        Oracle::Ping,
                        "ping.respond",
                        format!(
                            "the sync ping was not answered within {} ms",
                            self.timeout.as_millis()
                        ),
                        None,
                    )
                } else {
                    Verdict::new(
                        Oracle::Unanswered,
                        "jsonrpc.request.answered",
                        format!("{method} was not answered within {} ms", within.as_millis()),
                        None,
                    )
                };
                verdicts.push(v);
                return Err(verdicts);
            }
        }
    }

    /// After a failed write: wait briefly for the exit to be reported.
    async fn settle_exit(&mut self, verdicts: &mut Vec<Verdict>) {
        let deadline = Instant::now() + Duration::from_millis(500);
        while self.exit.is_none() && self.pump(deadline, verdicts).await {}
        if self.exit.is_none() {
            self.exit = Some("the target closed its stdin".to_owned());
            verdicts.push(self.alive_verdict());
        }
    }

    /// The sync ping was answered with an error: alive, but not as the
    /// specification wants (an empty result).
    fn ping_refused(&self, code: i64) -> Verdict {
        let detail = format!("the sync ping was answered with error {code}");
        if self.initialized {
            Verdict::new(Oracle::Ping, "ping.respond", detail, None)
                .about("ping answered with an error".to_owned())
        } else {
            Verdict::new(
                Oracle::Ping,
                "lifecycle.server.ping-before-init",
                format!("{detail} before initialize"),
                None,
            )
            .about(PING_BEFORE_INIT.to_owned())
        }
    }

    fn alive_verdict(&self) -> Verdict {
        let how = self.exit.clone().unwrap_or_default();
        let (req, what) = if self.judge.anything_owed() {
            (
                "jsonrpc.request.answered",
                "with a valid request unanswered",
            )
        } else {
            ("jsonrpc.robustness.survives-invalid", "")
        };
        let v = Verdict::new(
            Oracle::Alive,
            req,
            format!("{how} {what}").trim_end().to_owned(),
            None,
        );
        match self.judge.oldest_owed() {
            // What it died on is better known than the input's kind.
            Some(method) => v.about(format!("request {method}")),
            None => v,
        }
    }

    /// Receives one event before `deadline` and handles it. False on timeout
    /// or once the target has exited.
    async fn pump(&mut self, deadline: Instant, verdicts: &mut Vec<Verdict>) -> bool {
        if self.exit.is_some() {
            return false;
        }
        let ev = match tokio::time::timeout_at(deadline, self.proc.recv()).await {
            Err(_) => return false,
            Ok(None) => {
                self.exit = Some("the target's output ended".to_owned());
                verdicts.push(self.alive_verdict());
                return false;
            }
            Ok(Some(ev)) => ev.event,
        };
        match &ev {
            Event::Frame(f) => {
                if let Ok(Inbound::Single(msg)) = classify(&f.bytes) {
                    if self.consume(&msg).await {
                        return true;
                    }
                }
                verdicts.extend(self.judge.received(&ev));
            }
            Event::FrameError(_) => verdicts.extend(self.judge.received(&ev)),
            Event::Stderr(line) => {
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
                self.exit = Some(how);
                verdicts.push(self.alive_verdict());
                return false;
            }
            // HTTP transports only; the fuzzer drives stdio.
            Event::Http(_) | Event::SseEvent { .. } | Event::SseError(_) | Event::Closed(_) => {}
        }
        true
    }

    /// Handles what is the driver's own business; true when consumed.
    async fn consume(&mut self, msg: &Message) -> bool {
        match msg {
            Message::Response(r) => match r.id.as_ref().and_then(|id| self.own.get_mut(id)) {
                Some(slot @ None) => {
                    *slot = Some(msg.clone());
                    true
                }
                _ => false,
            },
            Message::Request(r) => {
                let answer = if r.method == "ping" {
                    Message::result(r.id.clone(), json!({}))
                } else {
                    Message::error(Some(r.id.clone()), -32601, "method not found", None)
                };
                let line = answer.to_json() + "\n";
                self.write(line.as_bytes()).await;
                true
            }
            Message::Notification(n) => {
                if n.method == "notifications/progress" {
                    if let Some(t) = n.params.as_ref().and_then(|p| p.get("progressToken")) {
                        let now = self.now_ms();
                        self.judge.progress(t, now);
                    }
                }
                true
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
        self.judge.set_version(self.version);
        self.capabilities = result.get("capabilities").cloned();
        let line = Message::notification("notifications/initialized", None).to_json() + "\n";
        self.write(line.as_bytes()).await;
        self.judge.handshake_notification();
        self.initialized = true;
        self.discover().await.map_err(|v| HandshakeError {
            message: v.first().map_or_else(String::new, |v| v.detail.clone()),
            verdict: v.into_iter().next(),
        })
    }

    async fn discover(&mut self) -> Result<(), Vec<Verdict>> {
        let caps = self.capabilities.clone().unwrap_or(Value::Null);
        if caps.get("tools").is_some() {
            if let Message::Response(r) = self.call("list", "tools/list", None).await? {
                for t in r
                    .outcome
                    .ok()
                    .and_then(|v| v.get("tools").cloned())
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if let Some(name) = t.get("name").and_then(Value::as_str) {
                        let input_schema = t.get("inputSchema").cloned().unwrap_or(json!({}));
                        self.know.tools.push(Tool {
                            name: name.to_owned(),
                            input_schema,
                        });
                    }
                }
            }
        }
        if caps.get("prompts").is_some() {
            if let Message::Response(r) = self.call("list", "prompts/list", None).await? {
                for p in r
                    .outcome
                    .ok()
                    .and_then(|v| v.get("prompts").cloned())
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if let Some(name) = p.get("name").and_then(Value::as_str) {
                        let arguments = p
                            .get("arguments")
                            .and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(|x| {
                                        let n = x.get("name")?.as_str()?.to_owned();
                                        Some((
                                            n,
                                            x.get("required")
                                                .and_then(Value::as_bool)
                                                .unwrap_or(false),
                                        ))
                                    })
                                    .collect()
                            })
                            .unwrap_or_default();
                        self.know.prompts.push(Prompt {
                            name: name.to_owned(),
                            arguments,
                        });
                    }
                }
            }
        }
        if caps.get("resources").is_some() {
            if let Message::Response(r) = self.call("list", "resources/list", None).await? {
                for x in r
                    .outcome
                    .ok()
                    .and_then(|v| v.get("resources").cloned())
                    .and_then(|v| v.as_array().cloned())
                    .unwrap_or_default()
                {
                    if let Some(uri) = x.get("uri").and_then(Value::as_str) {
                        self.know.resources.push(uri.to_owned());
                    }
                }
            }
        }
        Ok(())
    }

    /// Sends one input and the sync ping; returns what tripped.
    pub async fn exec(&mut self, exec: u64, input: &Input, expects: &[Expect]) -> Vec<Verdict> {
        let now = self.now_ms();
        self.judge.sent(exec, expects, now);
        let mut verdicts = Vec::new();
        let mut chunks = input.chunks();
        let last = chunks.pop().unwrap_or_default();
        for chunk in &chunks {
            if !self.write(chunk).await {
                self.settle_exit(&mut verdicts).await;
                return attribute(verdicts, exec);
            }
            // Separate writes; give the target a chance to read each on its own.
            tokio::task::yield_now().await;
        }
        match self.call_after(&last, "ping", "ping", None).await {
            Err(v) => verdicts.extend(v),
            Ok(Message::Response(r)) => {
                if let Err(e) = &r.outcome {
                    verdicts.push(self.ping_refused(e.code));
                }
            }
            Ok(_) => {}
        }
        verdicts.append(&mut self.carry);
        let now = self.now_ms();
        verdicts.extend(self.judge.overdue(now));
        attribute(verdicts, exec)
    }

    /// Waits (up to the timeout) for every owed answer; returns what tripped.
    pub async fn drain(&mut self) -> Vec<Verdict> {
        let mut verdicts = Vec::new();
        while self.judge.owed() > 0 && self.exit.is_none() {
            let Some(due) = self.judge.next_deadline() else {
                break;
            };
            let now = self.now_ms();
            let wait = Duration::from_millis(due.saturating_sub(now) + 1);
            let deadline = Instant::now() + wait;
            while self.pump(deadline, &mut verdicts).await && self.judge.owed() > 0 {}
            let now = self.now_ms();
            verdicts.extend(self.judge.overdue(now));
        }
        verdicts
    }

    /// Verdicts seen while the driver waited for its own answers.
    pub fn take_carry(&mut self) -> Vec<Verdict> {
        std::mem::take(&mut self.carry)
    }

    /// True once the target has exited.
    pub fn exited(&self) -> bool {
        self.exit.is_some()
    }

    pub fn kill(&mut self) {
        self.proc.kill();
    }
}

/// Verdicts without an exec of their own belong to the exec that saw them.
fn attribute(mut verdicts: Vec<Verdict>, exec: u64) -> Vec<Verdict> {
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
        let seen = Verdict::new(Oracle::Ping, "ping.respond", String::new(), None);
        let own = Verdict::new(
            Oracle::Unanswered,
            "jsonrpc.request.answered",
            String::new(),
            Some(2),
        );
        let v = attribute(vec![seen, own], 9);
        assert_eq!((v[0].exec, v[1].exec), (Some(9), Some(2)));
    }
}
