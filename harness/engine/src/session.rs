//! Session state for one MCP connection, seen from one side — the oracle.
//!
//! A [`Session`] is told about every message that crosses the connection, in
//! both directions, and answers with the [`Violation`]s the *peer* committed.
//! It never judges its own side: a scenario may send deliberately broken
//! messages, and the session only records them so that later answers can be
//! matched. It performs no I/O and reads no clock: every call takes `now_ms`,
//! milliseconds since the session began.
//!
//! ```text
//!  handshake versions (2024-11-05 … 2025-11-25):
//!
//!   BeforeInit ──initialize request──► Initializing ──result──► Initialized
//!       │                                   │                       │
//!       │                              error result           notifications/initialized
//!       │                                   ▼                       ▼
//!       └──────────────────────────────► (BeforeInit)           Operating ──close──► Closed
//!
//!  stateless version (2026-07-28): always Operating; no handshake. A
//!  dual-era peer may still fall back to `initialize`: once that exchange
//!  succeeds with a handshake version, the session takes that version and
//!  goes on from Initialized as above. The stateless rules live in
//!  [`stateless`].
//! ```
//!
//! Bookkeeping per direction: ids of requests sent (pending, answered,
//! cancelled) and received (seen, for uniqueness), progress tokens of active
//! requests with the last progress value (a token supplied again while
//! active is active until its last request is answered, its order
//! unjudged: whose progress it is, nothing says), and the number of unreadable
//! messages sent (each may be answered by an error with a null id).

use std::collections::{HashMap, HashSet};

use mcpspec_wire::{Id, Invalid, InvalidKind, Message, Response};
use serde_json::Value;

use crate::catalogue::ids;
use crate::level::Role;
use crate::requirement::Requirement;
use crate::version::{Lifecycle, Version};

mod cancellation;
mod client_peer;
mod stateless;

pub use cancellation::Undecided;

/// The `_meta` key under which a 2026-07-28 request names its protocol version.
pub use stateless::PROTOCOL_VERSION as META_PROTOCOL_VERSION;

/// Which way a message travelled, from this session's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Sent by this side (the harness, or the reference implementation).
    Outbound,
    /// Sent by the peer (the implementation under test).
    Inbound,
}

/// The lifecycle phase.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    BeforeInit,
    /// `initialize` sent (or received), no answer yet.
    Initializing {
        request: Id,
    },
    /// The initialize result is known; `notifications/initialized` not yet sent.
    Initialized,
    Operating,
    Closed,
}

/// A rule the peer broke, with the requirement it breaks.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    pub requirement: &'static Requirement,
    /// What happened, in a sentence fragment ("response to id 7, which was never sent").
    pub detail: String,
    pub at_ms: u64,
}

/// How many undecided rules a session keeps until they are taken
/// ([`Session::take_undecided`]); later ones are dropped.
const UNDECIDED_KEPT: usize = 16;

/// When a message this side sends reaches the peer, as far as the session
/// is told: what an answer to a cancelled request is judged from
/// ([`cancellation`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Delivery {
    /// As it is sent (stdio; a server writing to its client's stream).
    #[default]
    OnSend,
    /// When [`Session::cancellation_delivered`] says so (a client over
    /// HTTP: the response head of the POST that carried it).
    Reported,
}

/// A request this side sent and the peer has not answered yet.
#[derive(Debug, Clone)]
struct Pending {
    method: String,
    progress_token: Option<Value>,
    /// When it was sent (ms).
    sent_ms: u64,
    /// This side's cancellation of it, if it sent one.
    cancel: Option<cancellation::Cancel>,
    /// It cannot be answered on its own before this (ms), when this side
    /// knows ([`Session::lasts`]).
    natural_end: Option<u64>,
    /// An invalid request whose id was readable: it may never be answered
    /// with that id (a null-id error is as good), so it is never "owed".
    invalid: bool,
    /// The request's `_meta` protocol version (stateless versions), if any.
    meta_version: Option<String>,
    /// The request's `_meta` log level (2026-07-28 logging opt-in), if any.
    log_level: Option<String>,
    /// The request's `_meta` client capabilities (2026-07-28), if any.
    client_capabilities: Option<Value>,
    /// The request this side sent earlier with the same id, still
    /// unanswered when this one went (a fuzzer's or a scenario's reuse):
    /// an answer to the id may be to either, so neither is judged by it.
    earlier: Option<Box<Pending>>,
    /// One of two requests with this id was answered: which one, the
    /// answer could not say.
    ambiguous: bool,
}

impl Pending {
    /// Whether an answer to this id may be to another request than this one.
    fn shared_id(&self) -> bool {
        self.ambiguous || self.earlier.is_some()
    }
}

#[derive(Debug, Clone)]
struct TokenState {
    last_progress: Option<f64>,
    /// Requests carrying the token still unanswered.
    active: u32,
    /// The token was supplied again while a request carrying it was still
    /// unanswered (a fuzzer's edge token, reused; the sender's uniqueness
    /// MUST, basic/utilities/progress): progress under it may be any of
    /// theirs, so its order is not judged, and it stays active until the
    /// last of them is answered.
    shared: bool,
}

/// State of one session, from the point of view of `own` role.
#[derive(Debug)]
pub struct Session {
    own: Role,
    version: Option<Version>,
    phase: Phase,
    /// Requests we sent, awaiting answers.
    sent_pending: HashMap<Id, Pending>,
    /// Requests we sent that were answered (to detect double answers).
    sent_answered: HashSet<Id>,
    /// Ids of requests the peer sent (uniqueness).
    received_ids: HashSet<Id>,
    /// Requests the peer sent that we have not answered, with their methods.
    received_pending: HashMap<Id, String>,
    /// Progress tokens we supplied, by token JSON text.
    tokens: HashMap<String, TokenState>,
    /// Unreadable messages we sent: each may earn an error with a null id.
    unreadable_sent: u32,
    negotiated_capabilities: Option<Value>,
    /// What the stateless rules remember (2026-07-28).
    stateless: stateless::State,
    /// Playing the server: the id of the client's `initialize` request.
    peer_initialize: Option<Id>,
    /// Playing the server: every `nextCursor` this side issued.
    issued_cursors: HashSet<String>,
    delivery: Delivery,
    /// Rules the traffic left undecided and nobody took yet, in order (at
    /// most [`UNDECIDED_KEPT`]: a fuzzer never takes them).
    undecided: Vec<Undecided>,
}

impl Session {
    /// A new session for `own` role. `version` is known up front for
    /// stateless versions or when the caller pins it; otherwise it is learnt
    /// from the initialize exchange.
    pub fn new(own: Role, version: Option<Version>) -> Self {
        let phase = match version.map(Version::lifecycle) {
            Some(Lifecycle::Stateless) => Phase::Operating,
            _ => Phase::BeforeInit,
        };
        Session {
            own,
            version,
            phase,
            sent_pending: HashMap::new(),
            sent_answered: HashSet::new(),
            received_ids: HashSet::new(),
            received_pending: HashMap::new(),
            tokens: HashMap::new(),
            unreadable_sent: 0,
            negotiated_capabilities: None,
            stateless: stateless::State::default(),
            peer_initialize: None,
            issued_cursors: HashSet::new(),
            delivery: Delivery::default(),
            undecided: Vec::new(),
        }
    }

    /// Says when the cancellations this side sends from now on reach the
    /// peer ([`Delivery::OnSend`] unless told otherwise).
    pub fn set_delivery(&mut self, delivery: Delivery) {
        self.delivery = delivery;
    }

    /// The peer has this side's cancellation of request `id` from `at_ms`
    /// on ([`Delivery::Reported`]: the POST that carried it was accepted).
    pub fn cancellation_delivered(&mut self, id: &Id, at_ms: u64) {
        if let Some(cancel) = self
            .sent_pending
            .get_mut(id)
            .and_then(|p| p.cancel.as_mut())
        {
            cancel.delivered_ms.get_or_insert(at_ms);
        }
    }

    /// This side's pending request `id` cannot be answered on its own
    /// sooner than `at_least_ms` after it was sent (a slow call whose length
    /// this side chose): an answer sooner, once it is cancelled, is the
    /// cancellation's doing.
    pub fn lasts(&mut self, id: &Id, at_least_ms: u64) {
        if let Some(p) = self.sent_pending.get_mut(id) {
            p.natural_end = Some(p.sent_ms.saturating_add(at_least_ms));
        }
    }

    /// The rules the traffic left undecided since they were last taken, in
    /// order: judged neither way (an answer that may have crossed its
    /// cancellation).
    pub fn undecided(&self) -> &[Undecided] {
        &self.undecided
    }

    /// Takes what [`Session::undecided`] lists.
    pub fn take_undecided(&mut self) -> Vec<Undecided> {
        std::mem::take(&mut self.undecided)
    }

    fn leave_undecided(&mut self, u: Undecided) {
        if self.undecided.len() < UNDECIDED_KEPT {
            self.undecided.push(u);
        }
    }

    pub fn own_role(&self) -> Role {
        self.own
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The negotiated (or pinned) version, once known. A session pinned to a
    /// stateless version changes it once, when a fallback `initialize`
    /// exchange succeeds with a handshake version.
    pub fn version(&self) -> Option<Version> {
        self.version
    }

    /// Whether the stateless rules of 2026-07-28 apply now: the version is
    /// stateless and no fallback handshake took the session elsewhere.
    pub fn is_stateless(&self) -> bool {
        self.version
            .is_some_and(|v| v.lifecycle() == Lifecycle::Stateless)
    }

    /// The version an answer to our request `id` is judged by: the
    /// version the request named in its `_meta` when that is a known
    /// version, the session's version otherwise. `None` when the request is
    /// not pending, names an unknown version, or is a fallback `initialize`
    /// of a stateless session (its version is the one the answer names).
    /// For the runner's schema check: a dual-era target may answer a
    /// request by another version's rules than the case's.
    pub fn request_version(&self, id: &Id) -> Option<Version> {
        let pending = self.sent_pending.get(id)?;
        match &pending.meta_version {
            Some(v) => v.parse().ok(),
            None if pending.method == "initialize" && self.is_stateless() => None,
            None => self.version,
        }
    }

    /// The peer's capabilities, once known: from the initialize exchange,
    /// or (2026-07-28) from the latest `server/discover` result.
    pub fn peer_capabilities(&self) -> Option<&Value> {
        self.negotiated_capabilities.as_ref()
    }

    /// Is a request we sent still awaiting its answer?
    pub fn is_pending(&self, id: &Id) -> bool {
        self.sent_pending.contains_key(id)
    }

    /// The method of the unanswered request we sent with `id` (cancelled or
    /// not): what an answer to `id` is an answer to.
    /// `None` too when two requests with `id` were outstanding at once: an
    /// answer to it cannot say which it answers.
    pub fn sent_method(&self, id: &Id) -> Option<&str> {
        self.sent_pending
            .get(id)
            .filter(|p| !p.shared_id())
            .map(|p| p.method.as_str())
    }

    /// Requests the peer still owes an answer: sent, valid, not answered and
    /// not cancelled; with their methods.
    pub fn pending(&self) -> impl Iterator<Item = (&Id, &str)> {
        self.sent_pending
            .iter()
            .flat_map(|(id, p)| {
                std::iter::successors(Some(p), |p| p.earlier.as_deref()).map(move |p| (id, p))
            })
            .filter(|(_, p)| !p.invalid && p.cancel.is_none())
            .map(|(id, p)| (id, p.method.as_str()))
    }

    /// Requests the peer sent that this side has not answered yet, with
    /// their methods.
    pub fn peer_requests_pending(&self) -> impl Iterator<Item = (&Id, &str)> {
        self.received_pending
            .iter()
            .map(|(id, method)| (id, method.as_str()))
    }

    /// Has the peer sent a request with this id that we have not answered?
    pub fn peer_request_pending(&self, id: &Id) -> bool {
        self.received_pending.contains_key(id)
    }

    /// Marks the connection closed.
    pub fn close(&mut self) {
        self.phase = Phase::Closed;
    }

    /// Records a message this side sent. Never produces violations.
    pub fn outbound(&mut self, msg: &Message, now_ms: u64) {
        match msg {
            Message::Request(r) => {
                let token = r
                    .params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get("progressToken"))
                    .cloned();
                if let Some(t) = &token {
                    let state = self.tokens.entry(t.to_string()).or_insert(TokenState {
                        last_progress: None,
                        active: 0,
                        shared: false,
                    });
                    if state.active == 0 {
                        state.last_progress = None;
                        state.shared = false;
                    } else {
                        state.shared = true;
                    }
                    state.active += 1;
                }
                if r.method == "initialize" && self.phase == Phase::BeforeInit {
                    self.phase = Phase::Initializing {
                        request: r.id.clone(),
                    };
                }
                self.stateless_outbound_request(r);
                let meta = r.params.as_ref().and_then(|p| p.get("_meta"));
                let text = |key: &str| {
                    meta.and_then(|m| m.get(key))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                };
                let earlier = self.sent_pending.remove(&r.id).map(Box::new);
                self.sent_pending.insert(
                    r.id.clone(),
                    Pending {
                        earlier,
                        ambiguous: false,
                        method: r.method.clone(),
                        progress_token: token,
                        sent_ms: now_ms,
                        cancel: None,
                        natural_end: None,
                        invalid: false,
                        meta_version: text(stateless::PROTOCOL_VERSION),
                        log_level: text(stateless::LOG_LEVEL),
                        client_capabilities: meta
                            .and_then(|m| m.get(stateless::CLIENT_CAPABILITIES))
                            .cloned(),
                    },
                );
            }
            Message::Notification(n) => match n.method.as_str() {
                "notifications/initialized" if self.phase == Phase::Initialized => {
                    self.phase = Phase::Operating;
                }
                "notifications/cancelled" => {
                    if let Some(id) = request_id_param(n.params.as_ref()) {
                        let delivered_ms = (self.delivery == Delivery::OnSend).then_some(now_ms);
                        if let Some(p) = self.sent_pending.get_mut(&id) {
                            // A second cancellation of the request changes nothing.
                            p.cancel.get_or_insert(cancellation::Cancel {
                                sent_ms: now_ms,
                                delivered_ms,
                            });
                        } else if self.sent_answered.contains(&id) {
                            for u in cancellation::after_the_answer(&id, now_ms) {
                                self.leave_undecided(u);
                            }
                        }
                    }
                }
                _ => {}
            },
            Message::Response(r) => {
                let method =
                    r.id.as_ref()
                        .and_then(|id| self.received_pending.remove(id));
                if self.own == Role::Server {
                    self.server_sent_result(r);
                    self.server_answered(r);
                    self.stateless_answered(r, method.as_deref());
                }
            }
        }
    }

    /// Records that this side sent bytes the peer cannot read as a message
    /// (malformed JSON or an invalid JSON-RPC object). The peer may answer
    /// each with one error whose id is null.
    pub fn outbound_unreadable(&mut self, invalid: &Invalid) {
        // JSON-RPC answers an invalid request with its id when the id could be
        // read, and with a null id otherwise; implementations differ on what
        // "could be read" means, so a readable id allows either answer.
        if let Some(id) = &invalid.id {
            let earlier = self.sent_pending.remove(id).map(Box::new);
            self.sent_pending.insert(
                id.clone(),
                Pending {
                    earlier,
                    ambiguous: false,
                    method: String::from("(invalid request)"),
                    progress_token: None,
                    sent_ms: 0,
                    cancel: None,
                    natural_end: None,
                    invalid: true,
                    meta_version: None,
                    log_level: None,
                    client_capabilities: None,
                },
            );
        }
        self.unreadable_sent += 1;
    }

    /// Records that this side sent a line with no message on it (blank or
    /// whitespace): a peer may ignore it or answer with a parse error.
    pub fn outbound_blank(&mut self) {
        self.unreadable_sent += 1;
    }

    /// Judges a message the peer sent.
    pub fn inbound(&mut self, msg: &Message, now_ms: u64) -> Vec<Violation> {
        let mut out = Vec::new();
        let mut flag = |requirement: &'static Requirement, detail: String| {
            out.push(Violation {
                requirement,
                detail,
                at_ms: now_ms,
            })
        };
        if let (Role::Server, Message::Notification(n)) = (self.own, msg) {
            self.client_peer_notification(n, &mut flag);
        }
        match msg {
            Message::Response(r) => self.inbound_response(r, now_ms, &mut flag),
            Message::Request(r) => {
                if !self.received_ids.insert(r.id.clone()) {
                    flag(
                        &ids::JSONRPC_REQUEST_ID_UNIQUE,
                        format!("{} reuses id {} from an earlier request", r.method, r.id),
                    );
                }
                self.received_pending.insert(r.id.clone(), r.method.clone());
                if self.own == Role::Server {
                    self.client_peer_request(r, &mut flag);
                }
                if self.is_stateless() {
                    self.stateless_inbound_request(r, &mut flag);
                }
                let early = matches!(
                    self.phase,
                    Phase::BeforeInit | Phase::Initializing { .. } | Phase::Initialized
                );
                if early && self.own == Role::Client && r.method != "ping" {
                    flag(
                        &ids::LIFECYCLE_SERVER_NO_REQUESTS_BEFORE_INITIALIZED,
                        format!(
                            "server sent request {} before notifications/initialized",
                            r.method
                        ),
                    );
                }
                if self.own == Role::Server && r.method == "initialize" {
                    if let Phase::BeforeInit = self.phase {
                        self.phase = Phase::Initializing {
                            request: r.id.clone(),
                        };
                    }
                }
            }
            Message::Notification(n) => match n.method.as_str() {
                _ if self.is_stateless() && self.stateless_inbound_notification(n, &mut flag) => {}
                "notifications/progress" => self.inbound_progress(n.params.as_ref(), &mut flag),
                "notifications/message" if self.own == Role::Client => {
                    let declared = self
                        .negotiated_capabilities
                        .as_ref()
                        .is_none_or(|c| c.get("logging").is_some());
                    if !declared {
                        flag(
                            &ids::LOGGING_CAPABILITY_DECLARED,
                            "notifications/message from a server that did not declare the logging capability"
                                .to_owned(),
                        );
                    }
                }
                "notifications/initialized"
                    if self.own == Role::Server && self.phase == Phase::Initialized =>
                {
                    self.phase = Phase::Operating;
                }
                _ => {}
            },
        }
        out
    }

    /// Judges bytes the peer sent that are not a valid message.
    pub fn inbound_invalid(&mut self, invalid: &Invalid, now_ms: u64) -> Violation {
        // An id of the wrong type breaks the narrower rule on request ids.
        let requirement = match invalid.kind {
            InvalidKind::IdNull
            | InvalidKind::IdFloat
            | InvalidKind::IdBool
            | InvalidKind::IdObject
            | InvalidKind::IdArray => &ids::JSONRPC_REQUEST_ID_TYPE,
            _ => &ids::JSONRPC_MESSAGE_VALID,
        };
        Violation {
            requirement,
            detail: format!("peer sent an invalid JSON-RPC message: {invalid}"),
            at_ms: now_ms,
        }
    }

    /// Judges a JSON array (batch) the peer sent; its elements are judged
    /// separately with [`Session::inbound`].
    pub fn inbound_batch(&mut self, now_ms: u64) -> Option<Violation> {
        match self.version {
            Some(v) if v.has_batches() => None,
            // Unknown version: give the benefit of the doubt.
            None => None,
            Some(v) => Some(Violation {
                requirement: &ids::JSONRPC_BATCH_ABSENT,
                detail: format!("peer sent a JSON-RPC batch, which {v} does not have"),
                at_ms: now_ms,
            }),
        }
    }

    fn inbound_response(
        &mut self,
        r: &Response,
        now_ms: u64,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        if self.own == Role::Client {
            // Before the bookkeeping: the answered request is still pending.
            self.stateless_inbound_response(r, flag);
        }
        let Some(id) = &r.id else {
            // Only an error may lack an id, and only for a message we sent
            // that could not be read.
            if r.id_absent && self.version.is_some_and(|v| !v.error_id_optional()) {
                flag(
                    &ids::JSONRPC_MESSAGE_VALID,
                    "error response without an id member (allowed only from 2025-11-25 on)"
                        .to_owned(),
                );
            }
            if self.unreadable_sent > 0 {
                self.unreadable_sent -= 1;
            } else {
                let what = match &r.outcome {
                    Err(e) => format!("error {} with a null id", e.code),
                    Ok(_) => "result with a null id".to_owned(),
                };
                flag(
                    &ids::JSONRPC_RESPONSE_ID_MATCHES,
                    format!(
                        "{what}, but every message sent had a readable id or was a notification"
                    ),
                );
            }
            return;
        };
        let Some(mut pending) = self.sent_pending.remove(id) else {
            if self.sent_answered.contains(id) {
                flag(
                    &ids::JSONRPC_RESPONSE_ONCE,
                    format!("second response to request id {id}"),
                );
            } else if self.unreadable_sent > 0
                && r.outcome
                    .as_ref()
                    .is_err_and(|e| matches!(e.code, -32700 | -32600))
            {
                // The parse error or invalid request about a message of ours
                // that could not be read, with an id guessed instead of null.
                self.unreadable_sent -= 1;
                flag(
                    &ids::JSONRPC_ERROR_NULL_ID,
                    format!(
                        "error with id {id}, which no request carried, after a message of ours \
                         that could not be read: an error about it carries a null id"
                    ),
                );
            } else {
                flag(
                    &ids::JSONRPC_RESPONSE_ID_MATCHES,
                    format!("response to id {id}, which no request carried"),
                );
            }
            return;
        };
        let shared_id = pending.shared_id();
        match pending.earlier.take() {
            // One of two requests with this id is answered; the other is
            // still owed, and which is which the answer cannot say.
            Some(mut other) => {
                other.ambiguous = true;
                self.sent_pending.insert(id.clone(), *other);
            }
            None => {
                self.sent_answered.insert(id.clone());
            }
        }
        if let Some(t) = &pending.progress_token {
            if let Some(state) = self.tokens.get_mut(&t.to_string()) {
                state.active = state.active.saturating_sub(1);
            }
        }
        if let (Some(cancel), false) = (pending.cancel, shared_id) {
            let what = format!("{} (id {id})", pending.method);
            match cancellation::judge(cancel, pending.natural_end, now_ms, &what) {
                cancellation::Verdict::Violation(detail) => flag(cancellation::RULE, detail),
                cancellation::Verdict::Undecided(detail) => {
                    self.leave_undecided(Undecided {
                        requirement: cancellation::RULE,
                        detail,
                        at_ms: now_ms,
                    });
                    self.leave_undecided(cancellation::nothing_to_stop(&what, now_ms));
                }
            }
        }
        // Only the answer to the handshake's own `initialize` moves the
        // lifecycle: a second `initialize` (a scenario probing that the
        // server refuses it) must not restart it, whatever the answer.
        let answers_handshake =
            matches!(&self.phase, Phase::Initializing { request } if request == id);
        if answers_handshake && self.own == Role::Client {
            self.learn_initialize_result(r);
        }
    }

    fn learn_initialize_result(&mut self, r: &Response) {
        match &r.outcome {
            Ok(result) => {
                if self.version.is_none() {
                    self.version = result
                        .get("protocolVersion")
                        .and_then(Value::as_str)
                        .and_then(|s| s.parse().ok());
                }
                self.negotiated_capabilities = result.get("capabilities").cloned();
                // A stateless version has no handshake to finish (a peer
                // may name 2026-07-28 in an initialize result).
                self.phase = if self.is_stateless() {
                    Phase::Operating
                } else {
                    Phase::Initialized
                };
            }
            Err(_) => self.phase = Phase::BeforeInit,
        }
    }

    fn server_answered(&mut self, r: &Response) {
        if let (Phase::Initializing { request }, Some(id)) = (&self.phase, &r.id) {
            if request == id {
                self.phase = if r.is_error() {
                    Phase::BeforeInit
                } else {
                    Phase::Initialized
                };
                if let Ok(result) = &r.outcome {
                    if self.version.is_none() {
                        self.version = result
                            .get("protocolVersion")
                            .and_then(Value::as_str)
                            .and_then(|s| s.parse().ok());
                    }
                    if self.is_stateless() {
                        self.phase = Phase::Operating;
                    }
                }
            }
        }
    }

    fn inbound_progress(
        &mut self,
        params: Option<&Value>,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        // A notification without a token or a numeric progress breaks its
        // schema definition (`progress.notification.shape`), which the
        // oracle's schema check reports: judged here is only what the
        // schema cannot see.
        let Some(token) = params.and_then(|p| p.get("progressToken")) else {
            return;
        };
        let key = token.to_string();
        let Some(state) = self.tokens.get_mut(&key) else {
            flag(
                &ids::PROGRESS_TOKEN_ACTIVE,
                format!("progress for token {key}, which no request supplied"),
            );
            return;
        };
        if state.active == 0 {
            flag(
                &ids::PROGRESS_TOKEN_ACTIVE,
                format!("progress for token {key} after its request completed"),
            );
            return;
        }
        let progress = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64);
        match (state.last_progress, progress) {
            (_, None) => {}
            (_, Some(_)) if state.shared => {}
            (Some(last), Some(now)) if now <= last => flag(
                &ids::PROGRESS_INCREASING,
                format!("progress for token {key} went from {last} to {now}"),
            ),
            (_, Some(now)) => state.last_progress = Some(now),
        }
    }
}

fn request_id_param(params: Option<&Value>) -> Option<Id> {
    Id::from_value(params?.get("requestId")?)
}

#[cfg(test)]
mod tests;
