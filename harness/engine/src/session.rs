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
//!  stateless version (2026-07-28): always Operating; no handshake.
//! ```
//!
//! Bookkeeping per direction: ids of requests sent (pending, answered,
//! cancelled) and received (seen, for uniqueness), progress tokens of active
//! requests with the last progress value, and the number of unreadable
//! messages sent (each may be answered by an error with a null id).

use std::collections::{HashMap, HashSet};

use mcpspec_wire::{Id, Invalid, InvalidKind, Message, Response};
use serde_json::Value;

use crate::level::Role;
use crate::requirement::{known, Requirement};
use crate::version::{Lifecycle, Version};

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

/// A request this side sent and the peer has not answered yet.
#[derive(Debug, Clone)]
struct Pending {
    method: String,
    progress_token: Option<Value>,
    cancelled: bool,
    /// An invalid request whose id was readable: it may never be answered
    /// with that id (a null-id error is as good), so it is never "owed".
    invalid: bool,
}

#[derive(Debug, Clone)]
struct TokenState {
    last_progress: Option<f64>,
    active: bool,
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
    /// Requests the peer sent that we have not answered.
    received_pending: HashSet<Id>,
    /// Progress tokens we supplied, by token JSON text.
    tokens: HashMap<String, TokenState>,
    /// Unreadable messages we sent: each may earn an error with a null id.
    unreadable_sent: u32,
    negotiated_capabilities: Option<Value>,
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
            received_pending: HashSet::new(),
            tokens: HashMap::new(),
            unreadable_sent: 0,
            negotiated_capabilities: None,
        }
    }

    pub fn own_role(&self) -> Role {
        self.own
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The negotiated (or pinned) version, once known.
    pub fn version(&self) -> Option<Version> {
        self.version
    }

    /// The peer's capabilities from the initialize exchange, once known.
    pub fn peer_capabilities(&self) -> Option<&Value> {
        self.negotiated_capabilities.as_ref()
    }

    /// Is a request we sent still awaiting its answer?
    pub fn is_pending(&self, id: &Id) -> bool {
        self.sent_pending.contains_key(id)
    }

    /// The method of the unanswered request we sent with `id` (cancelled or
    /// not): what an answer to `id` is an answer to.
    pub fn sent_method(&self, id: &Id) -> Option<&str> {
        self.sent_pending.get(id).map(|p| p.method.as_str())
    }

    /// Requests the peer still owes an answer: sent, valid, not answered and
    /// not cancelled; with their methods.
    pub fn pending(&self) -> impl Iterator<Item = (&Id, &str)> {
        self.sent_pending
            .iter()
            .filter(|(_, p)| !p.invalid && !p.cancelled)
            .map(|(id, p)| (id, p.method.as_str()))
    }

    /// Has the peer sent a request with this id that we have not answered?
    pub fn peer_request_pending(&self, id: &Id) -> bool {
        self.received_pending.contains(id)
    }

    /// Marks the connection closed.
    pub fn close(&mut self) {
        self.phase = Phase::Closed;
    }

    /// Records a message this side sent. Never produces violations.
    pub fn outbound(&mut self, msg: &Message, _now_ms: u64) {
        match msg {
            Message::Request(r) => {
                let token = r
                    .params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get("progressToken"))
                    .cloned();
                if let Some(t) = &token {
                    self.tokens.insert(
                        t.to_string(),
                        TokenState {
                            last_progress: None,
                            active: true,
                        },
                    );
                }
                if r.method == "initialize" && self.phase == Phase::BeforeInit {
                    self.phase = Phase::Initializing {
                        request: r.id.clone(),
                    };
                }
                self.sent_pending.insert(
                    r.id.clone(),
                    Pending {
                        method: r.method.clone(),
                        progress_token: token,
                        cancelled: false,
                        invalid: false,
                    },
                );
            }
            Message::Notification(n) => match n.method.as_str() {
                "notifications/initialized" if self.phase == Phase::Initialized => {
                    self.phase = Phase::Operating;
                }
                "notifications/cancelled" => {
                    if let Some(id) = request_id_param(n.params.as_ref()) {
                        if let Some(p) = self.sent_pending.get_mut(&id) {
                            p.cancelled = true;
                        }
                    }
                }
                _ => {}
            },
            Message::Response(r) => {
                if let Some(id) = &r.id {
                    self.received_pending.remove(id);
                }
                if self.own == Role::Server {
                    self.server_answered(r);
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
            self.sent_pending.insert(
                id.clone(),
                Pending {
                    method: String::from("(invalid request)"),
                    progress_token: None,
                    cancelled: false,
                    invalid: true,
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
        let mut flag = |id: &'static str, detail: String| {
            out.push(Violation {
                requirement: known(id),
                detail,
                at_ms: now_ms,
            })
        };
        match msg {
            Message::Response(r) => self.inbound_response(r, &mut flag),
            Message::Request(r) => {
                if !self.received_ids.insert(r.id.clone()) {
                    flag(
                        "jsonrpc.request.id-unique",
                        format!("{} reuses id {} from an earlier request", r.method, r.id),
                    );
                }
                self.received_pending.insert(r.id.clone());
                let early = matches!(
                    self.phase,
                    Phase::BeforeInit | Phase::Initializing { .. } | Phase::Initialized
                );
                if early && self.own == Role::Client && r.method != "ping" {
                    flag(
                        "lifecycle.server.no-requests-before-initialized",
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
                "notifications/progress" => self.inbound_progress(n.params.as_ref(), &mut flag),
                "notifications/message" if self.own == Role::Client => {
                    let declared = self
                        .negotiated_capabilities
                        .as_ref()
                        .is_none_or(|c| c.get("logging").is_some());
                    if !declared {
                        flag(
                            "logging.capability.declared",
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
            | InvalidKind::IdArray => known("jsonrpc.request.id-type"),
            _ => known("jsonrpc.message.valid"),
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
                requirement: known("jsonrpc.batch.absent"),
                detail: format!("peer sent a JSON-RPC batch, which {v} does not have"),
                at_ms: now_ms,
            }),
        }
    }

    fn inbound_response(&mut self, r: &Response, flag: &mut impl FnMut(&'static str, String)) {
        let Some(id) = &r.id else {
            // Only an error may lack an id, and only for a message we sent
            // that could not be read.
            if r.id_absent && self.version.is_some_and(|v| !v.error_id_optional()) {
                flag(
                    "jsonrpc.message.valid",
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
                    "jsonrpc.response.id-matches",
                    format!(
                        "{what}, but every message sent had a readable id or was a notification"
                    ),
                );
            }
            return;
        };
        let Some(pending) = self.sent_pending.remove(id) else {
            if self.sent_answered.contains(id) {
                flag(
                    "jsonrpc.response.once",
                    format!("second response to request id {id}"),
                );
            } else {
                flag(
                    "jsonrpc.response.id-matches",
                    format!("response to id {id}, which no request carried"),
                );
            }
            return;
        };
        self.sent_answered.insert(id.clone());
        if let Some(t) = &pending.progress_token {
            if let Some(state) = self.tokens.get_mut(&t.to_string()) {
                state.active = false;
            }
        }
        if pending.cancelled {
            flag(
                "cancellation.no-response",
                format!(
                    "{} (id {id}) was answered after the harness cancelled it",
                    pending.method
                ),
            );
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
                self.phase = Phase::Initialized;
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
                }
            }
        }
    }

    fn inbound_progress(
        &mut self,
        params: Option<&Value>,
        flag: &mut impl FnMut(&'static str, String),
    ) {
        let Some(token) = params.and_then(|p| p.get("progressToken")) else {
            flag(
                "progress.token-active",
                "notifications/progress without a progressToken".to_owned(),
            );
            return;
        };
        let key = token.to_string();
        let Some(state) = self.tokens.get_mut(&key) else {
            flag(
                "progress.token-active",
                format!("progress for token {key}, which no request supplied"),
            );
            return;
        };
        if !state.active {
            flag(
                "progress.token-active",
                format!("progress for token {key} after its request completed"),
            );
            return;
        }
        let progress = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64);
        match (state.last_progress, progress) {
            (_, None) => flag(
                "progress.token-active",
                format!("progress for token {key} has no numeric progress value"),
            ),
            (Some(last), Some(now)) if now <= last => flag(
                "progress.increasing",
                format!("progress for token {key} went from {last} to {now}"),
            ),
            (_, Some(now)) => state.last_progress = Some(now),
        }
    }
}

fn request_id_param(params: Option<&Value>) -> Option<Id> {
    match params?.get("requestId")? {
        Value::String(s) => Some(Id::String(s.clone())),
        Value::Number(n) if !n.is_f64() => Some(Id::Number(n.clone())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(v: &[Violation]) -> Vec<&str> {
        v.iter().map(|v| v.requirement.id).collect()
    }

    fn client() -> Session {
        let mut s = Session::new(Role::Client, None);
        s.outbound(
            &Message::request(
                0,
                "initialize",
                Some(json!({"protocolVersion": "2025-06-18"})),
            ),
            0,
        );
        let v = s.inbound(
            &Message::result(
                Id::from(0),
                json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}}),
            ),
            1,
        );
        assert!(v.is_empty());
        s.outbound(&Message::notification("notifications/initialized", None), 2);
        s
    }

    #[test]
    fn handshake_moves_through_phases() {
        let s = client();
        assert_eq!(s.phase(), &Phase::Operating);
        assert_eq!(s.version(), Some(Version::V2025_06_18));
        assert_eq!(s.peer_capabilities(), Some(&json!({"tools": {}})));
    }

    /// Regression (fuzz/corpus/engine, from server/lifecycle/initialize/second-initialize):
    /// the answer to a second `initialize` moved an operating session back to
    /// `Initialized`, so the server's next request was flagged as too early.
    #[test]
    fn a_second_initialize_does_not_restart_the_lifecycle() {
        for answer in [
            Message::result(
                Id::from(5),
                json!({"protocolVersion": "2024-11-05", "capabilities": {}}),
            ),
            Message::error(Some(Id::from(5)), -32600, "already initialized", None),
        ] {
            let mut s = client();
            s.outbound(&Message::request(5, "initialize", Some(json!({}))), 3);
            assert!(s.inbound(&answer, 4).is_empty());
            assert_eq!(s.phase(), &Phase::Operating);
            assert_eq!(s.version(), Some(Version::V2025_06_18));
            assert_eq!(s.peer_capabilities(), Some(&json!({"tools": {}})));
            assert!(s
                .inbound(&Message::request(1, "roots/list", None), 5)
                .is_empty());
        }
    }

    #[test]
    fn an_id_of_the_wrong_type_names_the_id_rule() {
        let mut s = client();
        let bad = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)
            .expect_err("a float id is invalid");
        assert_eq!(
            s.inbound_invalid(&bad, 1).requirement.id,
            "jsonrpc.request.id-type"
        );
        let other = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":1,"method":7}"#)
            .expect_err("a numeric method is invalid");
        assert_eq!(
            s.inbound_invalid(&other, 1).requirement.id,
            "jsonrpc.message.valid"
        );
    }

    #[test]
    fn responses_must_match_a_pending_request_once() {
        let mut s = client();
        s.outbound(&Message::request(1, "ping", None), 3);
        assert!(s
            .inbound(&Message::result(Id::from(1), json!({})), 4)
            .is_empty());
        assert_eq!(
            ids(&s.inbound(&Message::result(Id::from(1), json!({})), 5)),
            ["jsonrpc.response.once"]
        );
        assert_eq!(
            ids(&s.inbound(&Message::result(Id::from(9), json!({})), 6)),
            ["jsonrpc.response.id-matches"]
        );
    }

    #[test]
    fn null_id_error_needs_an_unreadable_message() {
        let mut s = client();
        let err = Message::error(None, -32700, "Parse error", None);
        assert_eq!(ids(&s.inbound(&err, 1)), ["jsonrpc.response.id-matches"]);
        s.outbound_unreadable(&mcpspec_wire::classify(b"{").unwrap_err());
        assert!(s.inbound(&err, 2).is_empty());
        assert_eq!(ids(&s.inbound(&err, 3)), ["jsonrpc.response.id-matches"]);
    }

    #[test]
    fn invalid_request_with_readable_id_may_be_answered_either_way() {
        let bad = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":5,"method":7}"#).unwrap_err();
        let mut s = client();
        s.outbound_unreadable(&bad);
        assert!(s
            .inbound(&Message::error(Some(Id::from(5)), -32600, "x", None), 1)
            .is_empty());
        let mut s = client();
        s.outbound_unreadable(&bad);
        assert!(s
            .inbound(&Message::error(None, -32600, "x", None), 1)
            .is_empty());
    }

    #[test]
    fn progress_rules() {
        let mut s = client();
        s.outbound(
            &Message::request(
                2,
                "tools/call",
                Some(json!({"_meta": {"progressToken": "t"}})),
            ),
            0,
        );
        let p = |v: f64| {
            Message::notification(
                "notifications/progress",
                Some(json!({"progressToken": "t", "progress": v})),
            )
        };
        assert!(s.inbound(&p(1.0), 1).is_empty());
        assert_eq!(ids(&s.inbound(&p(1.0), 2)), ["progress.increasing"]);
        assert!(s.inbound(&p(2.0), 3).is_empty());
        let other = Message::notification(
            "notifications/progress",
            Some(json!({"progressToken": "u", "progress": 1})),
        );
        assert_eq!(ids(&s.inbound(&other, 4)), ["progress.token-active"]);
        assert!(s
            .inbound(&Message::result(Id::from(2), json!({})), 5)
            .is_empty());
        assert_eq!(ids(&s.inbound(&p(3.0), 6)), ["progress.token-active"]);
    }

    #[test]
    fn pending_lists_only_what_the_peer_owes() {
        let mut s = client();
        s.outbound(&Message::request(7, "tools/call", None), 0);
        s.outbound(&Message::request(8, "tools/call", None), 0);
        s.outbound(
            &Message::notification("notifications/cancelled", Some(json!({"requestId": 8}))),
            1,
        );
        let bad = mcpspec_wire::classify(br#"{"jsonrpc":"2.0","id":9,"method":7}"#).unwrap_err();
        s.outbound_unreadable(&bad);
        let owed: Vec<String> = s.pending().map(|(id, m)| format!("{m} {id}")).collect();
        assert_eq!(owed, ["tools/call 7"]);
    }

    #[test]
    fn answer_after_cancel_is_flagged() {
        let mut s = client();
        s.outbound(&Message::request(3, "tools/call", None), 0);
        s.outbound(
            &Message::notification("notifications/cancelled", Some(json!({"requestId": 3}))),
            1,
        );
        assert_eq!(
            ids(&s.inbound(&Message::result(Id::from(3), json!({})), 2)),
            ["cancellation.no-response"]
        );
    }

    #[test]
    fn peer_request_ids_must_be_unique_and_wait_for_initialized() {
        let mut s = Session::new(Role::Client, None);
        assert_eq!(
            ids(&s.inbound(&Message::request(1, "roots/list", None), 0)),
            ["lifecycle.server.no-requests-before-initialized"]
        );
        assert!(s.inbound(&Message::request(2, "ping", None), 0).is_empty());
        assert_eq!(
            ids(&s.inbound(&Message::request(2, "ping", None), 0)),
            ["jsonrpc.request.id-unique"]
        );
    }

    #[test]
    fn log_messages_need_the_logging_capability() {
        let log = Message::notification(
            "notifications/message",
            Some(json!({"level": "info", "data": "x"})),
        );
        let mut s = client(); // declared tools only
        assert_eq!(ids(&s.inbound(&log, 1)), ["logging.capability.declared"]);
        let mut s = Session::new(Role::Client, None);
        assert!(
            s.inbound(&log, 1).is_empty(),
            "unknown capabilities: no judgement"
        );
    }

    #[test]
    fn batches_only_in_2025_03_26() {
        let mut s = Session::new(Role::Client, Some(Version::V2025_06_18));
        assert!(s.inbound_batch(0).is_some());
        let mut s = Session::new(Role::Client, Some(Version::V2025_03_26));
        assert!(s.inbound_batch(0).is_none());
    }

    #[test]
    fn every_requirement_the_engine_names_is_catalogued() {
        let src = include_str!("session.rs");
        let mut n = 0;
        for part in src.split('"').skip(1).step_by(2) {
            let looks_like_id = part.contains('.')
                && !part.ends_with(".rs")
                && !part.contains(' ')
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '.' || c == '-');
            if looks_like_id {
                n += 1;
                assert!(
                    crate::lookup(part).is_some(),
                    "{part} is not in the catalogue"
                );
            }
        }
        assert!(n >= 8, "found only {n} requirement ids in session.rs");
    }
}
