//! The reference MCP **client**, sans-IO: the counterpart of
//! [`crate::ReferenceServer`], used to validate mcpspec's client scenarios.
//! Run clean it behaves perfectly; each [`ClientFault`] makes it break
//! exactly one rule. A driver (the `mcpspec reference client` command) owns
//! the server connection and the clock, and carries out the [`Output`]s:
//!
//! ```text
//!   start(now) ──────────────────────────────┐
//!   server frame ─► on_frame(now, frame) ────┤
//!   timer at next_deadline() ─► on_tick(now) ┼─► Vec<Output>: Write(line) → the server
//!   server gone ─► on_eof(now) ──────────────┘               Stderr(text) → stderr
//!                                                            Exit(code)   → close, wait, exit
//! ```
//!
//! The session (its handshake is [`handshake`]):
//!
//! ```text
//!   Fresh ─start─► Initializing ─initialize result (supported version)─► Running ─┐
//!                     │  error, timeout, malformed result → Exit(1)     workflow done
//!                     │  unsupported version → Exit(0) (disconnect)       │
//!                     └──────────────────────────────── Lingering(--linger) ◄┘ ─► Exit(0)
//! ```
//!
//! Under 2026-07-28 there is no handshake ([`stateless`]): the session opens
//! with `server/discover` (skipped when [`ClientConfig::discover`] is off),
//! every request carries the version, the client's capabilities and
//! clientInfo in its `_meta`, and a server without `server/discover` is
//! spoken to with the handshake instead:
//!
//! ```text
//!   Fresh ─start─► Discovering ─result listing 2026-07-28─► Running (stateless)
//!                     │  -32601 or another plain error ─► Initializing (2025-11-25), as above
//!                     │  result without 2026-07-28, -32022 → Exit(0) (disconnect)
//!                     └  -32020/-32021, timeout → Exit(1)
//! ```
//!
//! In `Running` the client sends `notifications/initialized` (handshake
//! sessions only), then the
//! [`workflow`] one request at a time, each bounded by the request timeout
//! (a timeout sends `notifications/cancelled` and the workflow goes on).
//! At every stage it answers the server's requests at once ([`answers`]),
//! tolerates notifications, ignores responses to ids it is not waiting for
//! and logs and ignores lines that are not JSON-RPC. Batches are read
//! element-wise under 2025-03-26 (the answers go back as one array) and
//! refused with one -32600 error under every other version. EOF from the
//! server ends the session at once: Exit(0) once initialized, Exit(1) before.
//!
//! Request ids are the integers 1, 2, 3, … (1 is `initialize` or
//! `server/discover`), never reused. Versions are compared as [`Version`]s,
//! never as strings.

mod answers;
pub mod fault;
mod handshake;
mod param_tools;
mod stateless;
mod workflow;

use std::collections::BTreeMap;
use std::time::Duration;

use mcpspec_engine::Version;
use mcpspec_wire::{
    classify, encode_line, Frame, FrameError, Id, Inbound, Invalid, Message, Request, Response,
};
use serde_json::{json, Value};

pub use answers::{ROOT_NAME, ROOT_URI, SAMPLING_MODEL};
pub use fault::{ClientFault, FaultEntry, TABLE as FAULTS};
pub use param_tools::ParamTools;

use crate::error::INVALID_REQUEST;
use crate::Output;
use answers::Declared;
use fault::ClientFaults;
use workflow::{Call, Job, Paging, Workflow};

/// The `clientInfo.name` of the initialize request; log lines start with it.
pub const CLIENT_NAME: &str = "mcpspec-reference-client";

/// The versions the client negotiates with `initialize` (the handshake ones).
pub const CLIENT_VERSIONS: [Version; 4] = Version::HANDSHAKE;

/// The stateless version the client speaks without a handshake.
pub const STATELESS_VERSION: Version = Version::V2026_07_28;

/// Every version `ClientConfig::version` may name.
pub const SPOKEN_VERSIONS: [Version; 5] = Version::ALL;

/// The id of the session's first request.
const FIRST_ID: i64 = 1;

/// How to run the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// The protocol version offered in `initialize` (a handshake version),
    /// or 2026-07-28: the stateless protocol, falling back to the newest
    /// handshake version with a server that lacks `server/discover`.
    pub version: Version,
    /// Deliberate spec violations to commit.
    pub faults: Vec<ClientFault>,
    /// How long each request waits for its answer.
    pub request_timeout: Duration,
    /// How long to stay connected, answering the server, after the workflow.
    pub linger: Duration,
    /// Declare no client capability at all (roots, sampling, elicitation):
    /// their requests are then answered -32601.
    pub bare: bool,
    /// Under 2026-07-28, open with `server/discover` (the default). Off,
    /// the workflow starts at once and assumes tools, resources and prompts
    /// (clients may skip discovery: `stateless.discover.optional-for-clients`).
    pub discover: bool,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            version: Version::LATEST_HANDSHAKE,
            faults: Vec::new(),
            request_timeout: Duration::from_secs(10),
            linger: Duration::ZERO,
            bare: false,
            discover: true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Fresh,
    /// `server/discover` sent (2026-07-28), its answer awaited.
    Discovering,
    /// `initialize` sent, its answer awaited.
    Initializing,
    Running,
    /// The workflow is done; answering the server until `until` (ms).
    Lingering {
        until: u64,
    },
    Exited,
}

/// What an answer to one of our requests is for.
#[derive(Debug, Clone)]
enum Purpose {
    Discover,
    Initialize,
    /// The `early-request` fault's tools/list.
    Early,
    Job(Job, Call),
}

#[derive(Debug, Clone)]
struct Pending {
    method: &'static str,
    deadline: u64,
    purpose: Purpose,
}

/// Collects the outputs of one call into the client.
#[derive(Debug, Default)]
struct Out(Vec<Output>);

impl Out {
    fn send(&mut self, msg: &Message) {
        self.0.push(Output::Write(encode_line(&msg.to_json())));
    }
    fn send_batch(&mut self, msgs: &[Message]) {
        let array = Value::Array(msgs.iter().map(Message::to_value).collect());
        self.0.push(Output::Write(encode_line(&array.to_string())));
    }
    fn log(&mut self, line: impl AsRef<str>) {
        self.0
            .push(Output::Stderr(format!("{CLIENT_NAME}: {}", line.as_ref())));
    }
}

/// The reference MCP client, sans-IO. See the module documentation.
#[derive(Debug)]
pub struct ReferenceClient {
    offered: Version,
    /// The session speaks 2026-07-28 (until a fallback to `initialize`).
    stateless: bool,
    /// Open a stateless session with `server/discover`.
    discover: bool,
    /// The `bare` configuration, kept for a fallback's declaration.
    bare: bool,
    faults: ClientFaults,
    declared: Declared,
    timeout_ms: u64,
    linger_ms: u64,
    phase: Phase,
    next_id: i64,
    pending: BTreeMap<i64, Pending>,
    /// The version in use once the initialize result named one.
    negotiated: Option<Version>,
    workflow: Workflow,
    /// The id of the `initialize` request (the first one, unless it falls
    /// back from `server/discover`).
    initialize_id: i64,
    /// The `reuse-ids` fault has sent its ping with the initialize id.
    reused: bool,
    /// The `retry-state-leaked` fault: the last requestState a server gave.
    leaked_state: Option<String>,
    /// A request was sent again after a -32022 that listed 2026-07-28
    /// (once per session).
    version_retried: bool,
    /// The `deref-network-ref` fault: network URIs to fetch, for the
    /// driver ([`ReferenceClient::take_fetches`]).
    fetches: Vec<String>,
}

impl ReferenceClient {
    /// The client with its request ids starting at `first` (and its
    /// `initialize`, when it opens with one, taking it): a driver that
    /// starts the client again within one stateless run (after an
    /// authorization) keeps its ids unique across the restarts.
    pub fn ids_from(mut self, first: i64) -> Self {
        self.next_id = first;
        self.initialize_id = first;
        self
    }

    pub fn new(config: ClientConfig) -> Self {
        let faults = ClientFaults::new(&config.faults);
        ReferenceClient {
            offered: config.version,
            stateless: config.version == STATELESS_VERSION,
            discover: config.discover,
            bare: config.bare,
            faults,
            declared: Declared::for_version(config.version, faults, config.bare),
            timeout_ms: millis(config.request_timeout),
            linger_ms: millis(config.linger),
            phase: Phase::Fresh,
            next_id: FIRST_ID,
            pending: BTreeMap::new(),
            negotiated: None,
            workflow: Workflow::default(),
            initialize_id: FIRST_ID,
            reused: false,
            leaked_state: None,
            version_retried: false,
            fetches: Vec::new(),
        }
    }

    /// Network URIs the client wants fetched (HTTP GET) — only the
    /// `deref-network-ref` fault ever asks, with the `$ref`s of the tools it
    /// listed; the clean client dereferences no network URI
    /// (`schema.ref.no-network-dereference`). The driver calls this after
    /// each batch of outputs.
    pub fn take_fetches(&mut self) -> Vec<String> {
        std::mem::take(&mut self.fetches)
    }

    /// The negotiated protocol version, once the initialize result named a
    /// supported one (the offered one under `accept-unsupported-version`),
    /// or 2026-07-28 once `server/discover` listed it (at once without
    /// discovery): the session is open.
    pub fn version(&self) -> Option<Version> {
        self.negotiated
    }

    /// The version an HTTP transport announces in `MCP-Protocol-Version`
    /// on what the client writes next: 2026-07-28 on every stateless
    /// request (`server/discover` included); in a handshake session, the
    /// negotiated version once it has the header (2025-06-18 on); else none.
    pub fn header_version(&self) -> Option<Version> {
        if self.stateless {
            return Some(STATELESS_VERSION);
        }
        self.negotiated.filter(|v| v.has_protocol_version_header())
    }

    /// The `x-mcp-header` annotations of the tools the client kept, by
    /// tool name: the driver hands them to a Streamable HTTP transport,
    /// which mirrors them into `Mcp-Param-*` headers (`param_tools`).
    pub fn param_tools(&self) -> &ParamTools {
        &self.workflow.param_tools
    }

    /// True while the session speaks the stateless protocol (2026-07-28).
    pub fn is_stateless(&self) -> bool {
        self.stateless
    }

    /// True once an Exit has been produced.
    pub fn has_exited(&self) -> bool {
        self.phase == Phase::Exited
    }

    /// Opens the session: `server/discover` under 2026-07-28, else the
    /// initialize request (and what faults add).
    pub fn start(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Out::default();
        if self.phase != Phase::Fresh {
            return out.0;
        }
        if self.stateless {
            self.start_stateless(now_ms, &mut out);
        } else {
            self.send_initialize(now_ms, &mut out);
        }
        out.0
    }

    /// A frame (or framing error) from the server.
    pub fn on_frame(&mut self, now_ms: u64, frame: Result<Frame, FrameError>) -> Vec<Output> {
        let mut out = Out::default();
        if self.phase == Phase::Exited {
            return out.0;
        }
        let inbound = match frame {
            Err(e) => Err(e.to_string()),
            Ok(frame) => classify(&frame.bytes).map_err(|invalid| invalid.to_string()),
        };
        match inbound {
            Err(why) => self.malformed(&why, &mut out),
            Ok(Inbound::Single(msg)) => {
                let mut replies = Vec::new();
                self.on_message(now_ms, msg, &mut replies, &mut out);
                for reply in &replies {
                    out.send(reply);
                }
            }
            Ok(Inbound::Batch(items)) => self.on_batch(now_ms, items, &mut out),
        }
        self.advance(now_ms, &mut out);
        out.0
    }

    /// Timers: call when `now_ms >= next_deadline()`.
    pub fn on_tick(&mut self, now_ms: u64) -> Vec<Output> {
        let mut out = Out::default();
        if self.phase == Phase::Exited {
            return out.0;
        }
        let expired: Vec<i64> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline <= now_ms)
            .map(|(id, _)| *id)
            .collect();
        for id in expired {
            let Some(p) = self.pending.remove(&id) else {
                continue;
            };
            let why = format!("no answer within {} ms", self.timeout_ms);
            if let Purpose::Initialize | Purpose::Discover = p.purpose {
                // Never cancel initialize (cancellation.initialize-not-cancelled);
                // without discover's answer there is nothing to go on with.
                out.log(format!("{}: {why}; giving up", p.method));
                self.exit(1, &mut out);
                return out.0;
            }
            if id != self.initialize_id {
                let params = json!({ "requestId": id, "reason": format!("timed out: {why}") });
                out.send(&Message::notification(
                    "notifications/cancelled",
                    Some(params),
                ));
            }
            self.unanswered(id, p, &format!("{why}, cancelled"), &mut out);
        }
        if let Phase::Lingering { until } = self.phase {
            if until <= now_ms {
                out.log("linger time over; closing the session");
                self.exit(0, &mut out);
                return out.0;
            }
        }
        self.advance(now_ms, &mut out);
        out.0
    }

    /// When [`ReferenceClient::on_tick`] next has work to do.
    pub fn next_deadline(&self) -> Option<u64> {
        let linger = match self.phase {
            Phase::Exited => return None,
            Phase::Lingering { until } => Some(until),
            _ => None,
        };
        self.pending
            .values()
            .map(|p| p.deadline)
            .chain(linger)
            .min()
    }

    /// The server is gone (EOF on its stdout, the process exited, the HTTP
    /// session ended): the session ends at once.
    pub fn on_eof(&mut self, _now_ms: u64) -> Vec<Output> {
        let mut out = Out::default();
        match self.phase {
            Phase::Exited => {}
            Phase::Fresh | Phase::Initializing | Phase::Discovering => {
                let method = if self.phase == Phase::Discovering {
                    "server/discover"
                } else {
                    "initialize"
                };
                out.log(format!(
                    "the server closed the connection before answering {method}"
                ));
                self.exit(1, &mut out);
            }
            Phase::Running => {
                out.log(format!(
                    "the server closed the connection during the workflow ({} request(s) unanswered); ending the session",
                    self.pending.len()
                ));
                self.exit(0, &mut out);
            }
            Phase::Lingering { .. } => {
                out.log("the server closed the connection; ending the session");
                self.exit(0, &mut out);
            }
        }
        out.0
    }

    fn has(&self, fault: ClientFault) -> bool {
        self.faults.has(fault)
    }

    /// The version the session speaks: the negotiated one, else the offered one.
    fn session_version(&self) -> Version {
        self.negotiated.unwrap_or(self.offered)
    }

    fn exit(&mut self, code: i32, out: &mut Out) {
        self.phase = Phase::Exited;
        self.pending.clear();
        out.0.push(Output::Exit(code));
    }

    /// Sends a request with a fresh id and waits for it; returns the id.
    fn request(
        &mut self,
        now_ms: u64,
        method: &'static str,
        params: Option<Value>,
        purpose: Purpose,
        out: &mut Out,
    ) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send_request(id, now_ms, method, params, purpose, out);
        id
    }

    fn send_request(
        &mut self,
        id: i64,
        now_ms: u64,
        method: &'static str,
        params: Option<Value>,
        purpose: Purpose,
        out: &mut Out,
    ) {
        let params = if self.stateless {
            let mut params = self.stamp_meta(method, params);
            self.leak_state(&purpose, &mut params);
            Some(params)
        } else {
            params
        };
        let msg = Message::request(id, method, params);
        // The version is not known before the answer: the fault batches
        // every initialize (which 2025-03-26 forbids, and versions without
        // batches forbid as a batch).
        let batched = method == "initialize" && self.has(ClientFault::BatchedInitialize);
        if batched {
            out.send_batch(std::slice::from_ref(&msg));
        } else {
            out.send(&msg);
        }
        let deadline = now_ms.saturating_add(self.timeout_ms);
        self.pending.insert(
            id,
            Pending {
                method,
                deadline,
                purpose,
            },
        );
    }

    /// Moves the workflow on while nothing is awaited.
    fn advance(&mut self, now_ms: u64, out: &mut Out) {
        if self.phase != Phase::Running || !self.pending.is_empty() {
            return;
        }
        match self.workflow.next() {
            Some((job, call)) => {
                let reuse = job == Job::Ping && self.has(ClientFault::ReuseIds) && !self.reused;
                let params = call.params.clone();
                let method = call.method;
                let purpose = Purpose::Job(job, call);
                if reuse {
                    self.reused = true;
                    let id = self.initialize_id;
                    self.send_request(id, now_ms, method, params, purpose, out);
                } else {
                    self.request(now_ms, method, params, purpose, out);
                }
            }
            None => {
                out.log(self.workflow.summary());
                if self.linger_ms == 0 {
                    self.exit(0, out);
                } else {
                    out.log(format!("lingering for {} ms", self.linger_ms));
                    self.phase = Phase::Lingering {
                        until: now_ms.saturating_add(self.linger_ms),
                    };
                }
            }
        }
    }

    /// A line that is no JSON-RPC message (or a framing error).
    fn malformed(&mut self, why: &str, out: &mut Out) {
        if self.has(ClientFault::CrashOnMalformed) {
            out.log(format!("invalid message from the server ({why}); exiting"));
            self.exit(1, out);
        } else {
            out.log(format!(
                "ignoring an invalid message from the server: {why}"
            ));
        }
    }

    fn on_batch(&mut self, now_ms: u64, items: Vec<Result<Message, Invalid>>, out: &mut Out) {
        let version = self.session_version();
        if !version.has_batches() {
            out.log(format!(
                "refusing a JSON-RPC batch: batches are not part of protocol version {version}"
            ));
            let why = format!("JSON-RPC batches are not part of protocol version {version}");
            out.send(&Message::error(None, INVALID_REQUEST, &why, None));
            return;
        }
        if self.has(ClientFault::NoBatch) {
            out.log(format!("ignoring a batch of {} message(s)", items.len()));
            return;
        }
        let mut replies = Vec::new();
        for item in items {
            match item {
                Ok(msg) => self.on_message(now_ms, msg, &mut replies, out),
                Err(invalid) => out.log(format!(
                    "ignoring an invalid batch element from the server: {invalid}"
                )),
            }
            if self.phase == Phase::Exited {
                return;
            }
        }
        if !replies.is_empty() {
            out.send_batch(&replies);
        }
    }

    /// One message; answers to the server's requests go to `replies`.
    fn on_message(&mut self, now_ms: u64, msg: Message, replies: &mut Vec<Message>, out: &mut Out) {
        match msg {
            Message::Request(req) => self.on_request(&req, replies, out),
            Message::Notification(n) => {
                out.log(format!("notification {} from the server", n.method));
                if self.has(ClientFault::AnswerNotifications) {
                    replies.push(Message::result(Id::from(0), json!({})));
                }
                if n.method == "notifications/cancelled" {
                    self.on_cancelled(n.params.as_ref(), out);
                }
                // It never starts a URL elicitation: every completion is
                // of an unknown one, ignored (the fault exits instead).
                if n.method == "notifications/elicitation/complete"
                    && self.has(ClientFault::CrashOnUnknownComplete)
                    && self.session_version() >= Version::V2025_11_25
                {
                    out.log("a completion of an unknown elicitation; exiting");
                    self.exit(1, out);
                }
            }
            Message::Response(r) => self.on_response(now_ms, r, out),
        }
    }

    fn on_request(&mut self, req: &Request, replies: &mut Vec<Message>, out: &mut Out) {
        let answer = answers::answer(req, self.session_version(), self.declared, self.faults);
        match answer {
            Some(Ok(result)) => {
                out.log(format!("answered {} (id {})", req.method, req.id));
                replies.push(Message::result(req.id.clone(), result));
            }
            Some(Err(e)) => {
                out.log(format!(
                    "answered {} (id {}) with error {}",
                    req.method, req.id, e.code
                ));
                replies.push(Message::error(
                    Some(req.id.clone()),
                    e.code,
                    &e.message,
                    e.data,
                ));
            }
            None => out.log(format!("leaving {} (id {}) unanswered", req.method, req.id)),
        }
    }

    /// `notifications/cancelled` naming a request we still wait for: stop
    /// waiting for it, go on.
    fn on_cancelled(&mut self, params: Option<&Value>, out: &mut Out) {
        let Some(id) = params
            .and_then(|p| p.get("requestId"))
            .and_then(Value::as_i64)
        else {
            return;
        };
        let Some(p) = self.pending.remove(&id) else {
            return;
        };
        if let Purpose::Initialize | Purpose::Discover = p.purpose {
            out.log(format!("the server cancelled {}; giving up", p.method));
            self.exit(1, out);
            return;
        }
        self.unanswered(id, p, "cancelled by the server", out);
    }

    /// A request of ours will get no answer.
    fn unanswered(&mut self, id: i64, p: Pending, why: &str, out: &mut Out) {
        match p.purpose {
            Purpose::Job(job, call) => out.log(self.workflow.on_unanswered(&job, &call, why)),
            Purpose::Early | Purpose::Initialize | Purpose::Discover => {
                out.log(format!("{} (id {id}): {why}", p.method));
            }
        }
    }

    fn on_response(&mut self, now_ms: u64, r: Response, out: &mut Out) {
        let id = match &r.id {
            Some(Id::Number(n)) => n.as_i64(),
            _ => None,
        };
        let Some(p) = id.and_then(|id| self.pending.remove(&id)) else {
            let shown = r.id.as_ref().map_or("null".to_owned(), Id::to_string);
            out.log(format!(
                "ignoring a response to id {shown}, which is not awaited"
            ));
            return;
        };
        match p.purpose {
            Purpose::Discover => self.on_discover_answer(now_ms, r.outcome, out),
            Purpose::Initialize => self.on_initialize_answer(now_ms, r.outcome, out),
            Purpose::Early => match r.outcome {
                Ok(_) => out.log("early tools/list: answered with a result"),
                Err(e) => out.log(format!(
                    "early tools/list: error {} ({})",
                    e.code, e.message
                )),
            },
            Purpose::Job(job, call) => {
                let line = match &r.outcome {
                    Ok(result) if self.stateless && self.needs_input(result) => {
                        self.on_input_required(&job, &call, result)
                    }
                    Ok(result) if self.stateless && self.invalid_result_type(result).is_some() => {
                        let why = self.invalid_result_type(result).unwrap_or_default();
                        self.workflow.on_invalid(&job, &call, &why)
                    }
                    Ok(result) => {
                        if self.has(ClientFault::DerefNetworkRef) {
                            self.fetches.extend(workflow::network_refs(&job, result));
                        }
                        let paging = Paging {
                            tamper: self.has(ClientFault::TamperCursor),
                            empty_cursor_ends: self.has(ClientFault::EmptyCursorEnds),
                            fixed_page_size: self.has(ClientFault::FixedPageSize),
                        };
                        self.workflow.on_result(&job, result, paging)
                    }
                    Err(e) => match self.retry_after_unsupported(&job, &call, e) {
                        Some(line) => line,
                        None => self.workflow.on_error(&job, &call, e),
                    },
                };
                out.log(line);
            }
        }
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod clientside_tests;
#[cfg(test)]
mod stateless_tests;
#[cfg(test)]
mod tests;
