//! The server's entry points and its lifecycle: frames in, outputs out.
//!
//! ```text
//!   AwaitingInit ──initialize──► Initialized(v) ──notifications/initialized──► Operating(v)
//!        │                             │                                         │
//!   ping → {}                    requests served (a client that skips the notification
//!   initialize → result          is served all the same); a second initialize → -32600
//!   other known method → -32600
//!   unknown method → -32601
//! ```
//!
//! A request judged by 2026-07-28's rules (per-request `_meta`, no
//! handshake) bypasses this lifecycle altogether: see `stateless`, which
//! leaves the phase untouched, so one connection may mix both eras.
//!
//! Each frame is classified with `mcpspec_wire::classify`; a single message is
//! dispatched here, a batch is answered as one array (2025-03-26 only) or
//! rejected with one -32600 error. Method handlers live in `handlers`,
//! delayed work (the `slow` tool, counter updates, batches waiting for it) in
//! `timers`.

use std::collections::BTreeSet;

use mcpspec_engine::Version;
use mcpspec_wire::{classify, Frame, FrameError, Id, Inbound, Invalid, Message, Request};
use serde_json::{json, Map, Value};

use crate::error::{RpcError, INVALID_REQUEST, PARSE_ERROR};
use crate::fault::{Fault, FaultSet};
use crate::listen::Listen;
use crate::log_level::LogLevel;
use crate::outbox::Outbox;
use crate::stateless::Scope;
use crate::timers::{PendingBatch, SlowCall};
use crate::{Config, Output};

/// Every version this server speaks, oldest first: what `server/discover`
/// lists and what -32022 names as supported.
pub const SUPPORTED_VERSIONS: [Version; 5] = Version::ALL;

/// The versions `initialize` negotiates: 2026-07-28 has no handshake, so an
/// `initialize` asking for it (or for any version not listed here) is
/// answered with [`FALLBACK_VERSION`].
pub const HANDSHAKE_VERSIONS: [Version; 4] = Version::HANDSHAKE;

/// What the server answers an `initialize` asking for a version it lacks.
pub const FALLBACK_VERSION: Version = Version::LATEST_HANDSHAKE;

/// The `instructions` of the initialize and `server/discover` results.
pub(crate) const INSTRUCTIONS: &str = "mcpspec reference server: tools echo, add, fail, slow, \
     structured (and, under 2026-07-28, roots); resources mcpspec://static/1..5, mcpspec://blob, \
     mcpspec://counter; prompts media, simple, greet, summarize, dialogue.";

pub(crate) const SERVER_NAME: &str = "mcpspec-reference";

/// Where the session is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    AwaitingInit,
    /// `initialize` answered; `notifications/initialized` not yet received.
    Initialized(Version),
    Operating(Version),
}

/// How a request was answered.
#[derive(Debug)]
pub(crate) enum Reply {
    Now(Result<Value, RpcError>),
    /// The answer comes later, from a timer (the `slow` tool).
    Deferred,
    /// No answer, ever (cancelled, or a fault).
    Never,
}

/// The reference MCP server, sans-IO. See the crate documentation.
#[derive(Debug)]
pub struct ReferenceServer {
    pub(crate) faults: FaultSet,
    pub(crate) page_size: usize,
    pub(crate) phase: Phase,
    /// Threshold set by `logging/setLevel`; `None` until then.
    pub(crate) log_level: Option<LogLevel>,
    pub(crate) subscriptions: BTreeSet<String>,
    /// Next counter change to report to subscribers, while subscribed.
    pub(crate) counter_next: Option<u64>,
    /// In-flight `slow` tool calls, in arrival order.
    pub(crate) calls: Vec<SlowCall>,
    /// 2025-11-25 tasks (the opt-in extension `tasks`).
    pub(crate) tasks: crate::tasks::Tasks,
    /// Open `subscriptions/listen` streams (2026-07-28), in arrival order.
    pub(crate) listens: Vec<Listen>,
    /// Batches waiting for deferred answers.
    pub(crate) batches: Vec<PendingBatch>,
    pub(crate) next_batch: u64,
    /// The client declared the `roots` capability (used by `early-request`).
    pub(crate) client_has_roots: bool,
    /// The capabilities the client declared in `initialize`.
    pub(crate) client_capabilities: Map<String, Value>,
    /// Requests to the client (fixture tools asking mid-call), unanswered.
    pub(crate) asks: Vec<crate::fixtures::asks::Pending>,
    pub(crate) next_ask: u64,
    /// Work to do right after the initialize response has been written.
    pub(crate) after_initialize: bool,
    /// The stateless request being served (its `_meta`), while it is.
    pub(crate) scope: Option<Scope>,
    /// Capabilities of earlier stateless requests (only the
    /// `stateless-capability-inferred` fault keeps and uses them).
    pub(crate) remembered_capabilities: Map<String, Value>,
    /// Requests without a version in `_meta` are stateless too (the HTTP
    /// driver; it also keeps `subscriptions/listen` unanswered with -32601).
    pub(crate) expect_stateless: bool,
    exited: bool,
    /// Answers no request any more (the `late-cancel-wedges` fault).
    pub(crate) wedged: bool,
    /// What the `leak-on-malformed` fault keeps, never to be freed.
    leaked: Vec<Vec<u8>>,
}

/// What the `leak-on-malformed` fault keeps per unparseable line.
const LEAK_PER_MALFORMED: usize = 256 * 1024;

impl ReferenceServer {
    pub fn new(config: Config) -> Self {
        ReferenceServer {
            faults: FaultSet::new(&config.faults),
            page_size: config.page_size.max(1),
            phase: Phase::AwaitingInit,
            log_level: None,
            subscriptions: BTreeSet::new(),
            counter_next: None,
            calls: Vec::new(),
            tasks: crate::tasks::Tasks::default(),
            listens: Vec::new(),
            batches: Vec::new(),
            next_batch: 0,
            client_has_roots: false,
            client_capabilities: Map::new(),
            asks: Vec::new(),
            next_ask: 0,
            after_initialize: false,
            scope: None,
            remembered_capabilities: Map::new(),
            expect_stateless: false,
            exited: false,
            wedged: false,
            leaked: Vec::new(),
        }
    }

    /// A server for requests known to be 2026-07-28 ones (the HTTP driver:
    /// a POST whose `MCP-Protocol-Version` header says so): a request
    /// without a protocol version in its `_meta` is a stateless request
    /// missing it (-32602), not a request before `initialize` (-32600).
    pub fn expecting_stateless(mut self) -> Self {
        self.expect_stateless = true;
        self
    }

    /// The negotiated version, once `initialize` has been answered.
    pub fn version(&self) -> Option<Version> {
        match self.phase {
            Phase::AwaitingInit => None,
            Phase::Initialized(v) | Phase::Operating(v) => Some(v),
        }
    }

    /// A frame (or framing error) read from stdin; `now_ms` = ms since start.
    pub fn on_frame(&mut self, now_ms: u64, frame: Result<Frame, FrameError>) -> Vec<Output> {
        if self.exited {
            return Vec::new();
        }
        let mut out = Outbox::new(self.faults);
        match frame {
            Err(e) => self.parse_error(&e.to_string(), &mut out),
            Ok(frame) => match classify(&frame.bytes) {
                Err(invalid) if invalid.kind.is_parse_error() => {
                    self.parse_error(&invalid.kind.to_string(), &mut out)
                }
                Err(invalid) => out.send(&self.invalid_message(&invalid)),
                Ok(Inbound::Single(msg)) => self.on_message(now_ms, msg, &mut out),
                Ok(Inbound::Batch(items)) => self.on_batch(now_ms, items, &mut out),
            },
        }
        self.finish(out)
    }

    /// A message already read and classified, as [`ReferenceServer::on_frame`]
    /// serves its line: for drivers that embed the server (the harness's
    /// fixtures in client tests and client fuzzing).
    pub fn on_parsed(&mut self, now_ms: u64, msg: Message) -> Vec<Output> {
        if self.exited {
            return Vec::new();
        }
        let mut out = Outbox::new(self.faults);
        self.on_message(now_ms, msg, &mut out);
        self.finish(out)
    }

    /// Timers: call when `now_ms >= next_deadline()`.
    pub fn on_tick(&mut self, now_ms: u64) -> Vec<Output> {
        if self.exited {
            return Vec::new();
        }
        let mut out = Outbox::new(self.faults);
        self.run_timers(now_ms, &mut out);
        self.run_task_timers(now_ms, &mut out);
        self.finish(out)
    }

    /// When [`ReferenceServer::on_tick`] next has work to do.
    pub fn next_deadline(&self) -> Option<u64> {
        if self.exited {
            return None;
        }
        let tasks = self.tasks.deadline();
        match (self.timers_deadline(), tasks) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// stdin closed: the client is gone, so the server exits (0).
    pub fn on_eof(&mut self, _now_ms: u64) -> Vec<Output> {
        if self.exited {
            return Vec::new();
        }
        let mut out = Outbox::new(self.faults);
        if !self.calls.is_empty() {
            out.stderr(format!(
                "{SERVER_NAME}: stdin closed with {} call(s) in flight; exiting",
                self.calls.len()
            ));
        }
        out.exit(0);
        self.finish(out)
    }

    fn finish(&mut self, out: Outbox) -> Vec<Output> {
        self.exited |= out.exited();
        out.finish()
    }

    /// A line that is not JSON (or not even UTF-8 / too long): -32700, id null.
    fn parse_error(&mut self, reason: &str, out: &mut Outbox) {
        if self.faults.has(Fault::LeakOnMalformed) {
            // Written, not only reserved: the pages count in resident memory.
            self.leaked.push(vec![0x5a; LEAK_PER_MALFORMED]);
        }
        if self.faults.has(Fault::ExitOnMalformed) {
            out.stderr(format!(
                "{SERVER_NAME}: unparseable input ({reason}); exiting"
            ));
            out.exit(1);
            return;
        }
        let id = self.faults.has(Fault::ParseErrorId).then(|| Id::from(0));
        out.send(&Message::error(
            id,
            PARSE_ERROR,
            "parse error",
            Some(json!({ "reason": reason })),
        ));
    }

    /// JSON that is not a valid JSON-RPC message: -32600, with its id if readable.
    fn invalid_message(&self, invalid: &Invalid) -> Message {
        Message::error(
            invalid.id.clone(),
            INVALID_REQUEST,
            "invalid request",
            Some(json!({ "reason": invalid.kind.to_string(), "kind": invalid.kind.name() })),
        )
    }

    /// The response message for `result`, with error-code faults applied.
    pub(crate) fn response(&self, id: Id, result: Result<Value, RpcError>) -> Message {
        match result {
            Ok(v) => Message::result(id, v),
            Err(e) => {
                let e = e.with_faults(self.faults);
                Message::error(Some(id), e.code, &e.message, e.data)
            }
        }
    }

    /// How many copies of the answer to `method` go out (`duplicate-response`).
    pub(crate) fn copies(&self, method: &str) -> usize {
        if method == "tools/call" && self.faults.has(Fault::DuplicateResponse) {
            2
        } else {
            1
        }
    }

    fn on_message(&mut self, now_ms: u64, msg: Message, out: &mut Outbox) {
        match msg {
            Message::Request(req) => {
                if let Reply::Now(result) = self.on_request(now_ms, &req, None, out) {
                    for _ in 0..self.copies(&req.method) {
                        out.send(&self.response(req.id.clone(), result.clone()));
                    }
                }
                self.after_responses(out);
            }
            Message::Notification(n) => self.on_notification(now_ms, &n.method, n.params, out),
            Message::Response(r) => {
                if !self.on_client_response(&r, out) {
                    out.stderr(format!(
                        "{SERVER_NAME}: ignoring a response from the client ({})",
                        Message::Response(r).describe()
                    ));
                }
            }
        }
    }

    fn on_batch(&mut self, now_ms: u64, items: Vec<Result<Message, Invalid>>, out: &mut Outbox) {
        let allowed =
            self.version().is_some_and(Version::has_batches) && !self.faults.has(Fault::NoBatch);
        if !allowed {
            let why = match self.version() {
                Some(v) => format!("JSON-RPC batches are not part of protocol version {v}"),
                None => "JSON-RPC batches are not accepted before initialization".to_owned(),
            };
            out.send(&Message::error(None, INVALID_REQUEST, &why, None));
            return;
        }
        let batch = self.next_batch;
        self.next_batch += 1;
        let mut entries = Vec::new();
        let mut waiting = Vec::new();
        for item in items {
            match item {
                Err(invalid) => entries.push(self.invalid_message(&invalid)),
                Ok(Message::Request(req)) => {
                    match self.on_request(now_ms, &req, Some(batch), out) {
                        Reply::Now(result) => {
                            for _ in 0..self.copies(&req.method) {
                                entries.push(self.response(req.id.clone(), result.clone()));
                            }
                        }
                        Reply::Deferred => waiting.push(req.id.clone()),
                        Reply::Never => {}
                    }
                    if out.exited() {
                        return;
                    }
                }
                Ok(Message::Notification(n)) => {
                    self.on_notification(now_ms, &n.method, n.params, out)
                }
                Ok(Message::Response(r)) => {
                    self.on_client_response(&r, out);
                }
            }
        }
        if waiting.is_empty() {
            if !entries.is_empty() {
                out.send_batch(&entries);
            }
        } else {
            self.batches.push(PendingBatch {
                id: batch,
                entries,
                waiting,
            });
        }
        self.after_responses(out);
    }

    /// Handles one request (single or inside a batch).
    fn on_request(
        &mut self,
        now_ms: u64,
        req: &Request,
        batch: Option<u64>,
        out: &mut Outbox,
    ) -> Reply {
        if self.calls.iter().any(|c| c.id == req.id) || self.is_listening(&req.id) {
            return Reply::Now(Err(RpcError::invalid_request(format!(
                "request id {} is already in use by a request in flight",
                req.id
            ))));
        }
        if self.wedged {
            return Reply::Never;
        }
        let fresh = self.phase == Phase::AwaitingInit;
        if crate::stateless::is_stateless(req, self.expect_stateless, self.faults, fresh) {
            return self.on_stateless(now_ms, req, batch, out);
        }
        match req.method.as_str() {
            "ping" => return Reply::Now(self.ping()),
            "initialize" => return Reply::Now(self.initialize(req.params.as_ref())),
            _ => {}
        }
        let Some(version) = self.version() else {
            return Reply::Now(Err(if crate::handlers::is_known(&req.method) {
                RpcError::invalid_request(format!(
                    "server not initialized: send initialize before {}",
                    req.method
                ))
                .with_data(json!({ "method": req.method }))
            } else {
                RpcError::method_not_found(&req.method)
            }));
        };
        self.dispatch(now_ms, version, req, batch, out)
    }

    fn ping(&self) -> Result<Value, RpcError> {
        if self.phase == Phase::AwaitingInit && self.faults.has(Fault::RejectEarlyPing) {
            return Err(RpcError::invalid_request(
                "server not initialized: send initialize first",
            ));
        }
        if self.faults.has(Fault::PingNonEmpty) {
            return Ok(json!({ "ok": true }));
        }
        Ok(json!({}))
    }

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, RpcError> {
        if self.phase != Phase::AwaitingInit {
            return Err(RpcError::invalid_request(
                "already initialized: initialize may be sent only once per session",
            ));
        }
        let params = crate::handlers::params_object(params)?;
        let echo = self.faults.has(Fault::EchoUnsupportedVersion);
        let asked = params.get("protocolVersion");
        let version = match asked {
            Some(Value::String(requested)) => negotiate(requested),
            // The fault takes any JSON value, to echo it verbatim below.
            Some(_) if echo => FALLBACK_VERSION,
            _ => {
                return Err(RpcError::invalid_params(
                    "initialize requires protocolVersion (a string)",
                ))
            }
        };
        let capabilities = match params.get("capabilities") {
            None => None,
            Some(c @ Value::Object(_)) => Some(c),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "initialize: capabilities must be an object",
                ))
            }
        };
        let announced = match asked {
            Some(asked) if echo => asked.clone(),
            _ => Value::from(version.as_str()),
        };
        self.client_has_roots = capabilities.is_some_and(|c| c.get("roots").is_some());
        self.client_capabilities = capabilities
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        self.phase = Phase::Initialized(version);
        self.after_initialize = true;

        let tools = if self.faults.has(Fault::CapabilitiesNotObject) {
            json!(true)
        } else {
            json!({ "listChanged": true })
        };
        let mut caps = json!({
            "tools": tools,
            "resources": { "subscribe": true, "listChanged": true },
            "prompts": { "listChanged": true },
        });
        if !self.faults.has(Fault::UndeclaredLogging) {
            caps["logging"] = json!({});
        }
        if version.has_completions_capability() {
            caps["completions"] = json!({});
        }
        if crate::tasks::offered(version) {
            caps["tasks"] = crate::tasks::capability();
        }
        let mut result = json!({ "protocolVersion": announced, "capabilities": caps });
        if !self.faults.has(Fault::MissingServerInfo) {
            result["serverInfo"] =
                json!({ "name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION") });
        }
        if version >= Version::V2025_03_26 {
            result["instructions"] = Value::from(INSTRUCTIONS);
        }
        Ok(result)
    }

    /// Work that must follow the responses just written.
    fn after_responses(&mut self, out: &mut Outbox) {
        if !std::mem::take(&mut self.after_initialize) {
            return;
        }
        if let Some(v) = self.version() {
            out.stderr(format!("{SERVER_NAME}: initialized, protocol version {v}"));
        }
        if self.faults.has(Fault::StdoutNoise) {
            out.raw(b"server started\n");
        }
        if self.faults.has(Fault::EarlyRequest) && self.client_has_roots {
            out.send(&Message::request(
                "mcpspec-reference-roots-1",
                "roots/list",
                None,
            ));
        }
    }

    fn on_notification(
        &mut self,
        now_ms: u64,
        method: &str,
        params: Option<Value>,
        out: &mut Outbox,
    ) {
        if self.faults.has(Fault::AnswerNotification) {
            out.send(&Message::Response(mcpspec_wire::Response {
                id: None,
                id_absent: false,
                outcome: Ok(json!({})),
            }));
        }
        match method {
            "notifications/initialized" => {
                if let Phase::Initialized(v) = self.phase {
                    self.phase = Phase::Operating(v);
                }
            }
            "notifications/cancelled" => self.cancel(now_ms, params.as_ref(), out),
            _ => {}
        }
    }
}

/// The version to answer `initialize` with: the requested one when it is a
/// handshake-era version, else the newest of those.
pub fn negotiate(requested: &str) -> Version {
    requested
        .parse::<Version>()
        .ok()
        .filter(|v| HANDSHAKE_VERSIONS.contains(v))
        .unwrap_or(FALLBACK_VERSION)
}
