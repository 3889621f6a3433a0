//! Rules for a *client* peer, judged by a session that plays the server
//! (`own == Role::Server`): what a client may send in each phase of the
//! handshake, that it never cancels its `initialize`, and that it hands
//! pagination cursors back exactly as the server issued them.
//!
//! The handshake-era lifecycle (spec `basic/lifecycle`): initialize first;
//! nothing but `ping` before the initialize result; `notifications/initialized`
//! before ordinary requests. A dual-era client may open with
//! `server/discover` (2026-07-28) and fall back to `initialize`, so that
//! request is allowed before the handshake. None of this applies to a
//! stateless (2026-07-28) session, which has no handshake (and no session
//! that every cursor would come from).

use mcpspec_wire::{Id, Notification, Request, Response};
use serde_json::Value;

use super::{request_id_param, Phase, Session};
use crate::catalogue::ids;
use crate::requirement::Requirement;

/// Requests a client may send before its handshake is done.
const ALWAYS_ALLOWED: [&str; 2] = ["ping", "server/discover"];

impl Session {
    /// Judges a request from a client peer against the handshake phases and
    /// the cursors issued so far.
    pub(super) fn client_peer_request(
        &mut self,
        r: &Request,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        if self.is_stateless() {
            // No session: a cursor may come from a result this session never saw.
            return;
        }
        if let Some(cursor) = r
            .params
            .as_ref()
            .and_then(|p| p.get("cursor"))
            .and_then(Value::as_str)
        {
            if !self.issued_cursors.contains(cursor) {
                flag(
                    &ids::PAGINATION_CLIENT_OPAQUE_CURSOR,
                    format!(
                        "{} carries cursor {cursor:?}, which no result of this server issued",
                        r.method
                    ),
                );
            }
        }
        if ALWAYS_ALLOWED.contains(&r.method.as_str()) {
            return;
        }
        match &self.phase {
            Phase::BeforeInit if r.method != "initialize" => flag(
                &ids::LIFECYCLE_INITIALIZE_FIRST,
                format!("client sent {} before initialize", r.method),
            ),
            Phase::Initializing { .. } => flag(
                &ids::LIFECYCLE_CLIENT_NO_REQUESTS_BEFORE_RESPONSE,
                format!(
                    "client sent {} before the server answered initialize",
                    r.method
                ),
            ),
            Phase::Initialized => flag(
                &ids::LIFECYCLE_CLIENT_INITIALIZED_NOTIFICATION,
                format!("client sent {} before notifications/initialized", r.method),
            ),
            _ => {}
        }
        if r.method == "initialize" && matches!(self.phase, Phase::BeforeInit) {
            self.peer_initialize = Some(r.id.clone());
        }
    }

    /// Judges a notification from a client peer: it never cancels its own
    /// `initialize`.
    pub(super) fn client_peer_notification(
        &mut self,
        n: &Notification,
        flag: &mut impl FnMut(&'static Requirement, String),
    ) {
        if n.method != "notifications/cancelled" {
            return;
        }
        let target = request_id_param(n.params.as_ref());
        if let (Some(id), Some(init)) = (target, &self.peer_initialize) {
            if &id == init {
                flag(
                    &ids::CANCELLATION_INITIALIZE_NOT_CANCELLED,
                    format!("client cancelled its initialize request (id {id})"),
                );
            }
        }
    }

    /// Remembers the cursor of a list result this side (the server) sent.
    pub(super) fn server_sent_result(&mut self, r: &Response) {
        if let Ok(result) = &r.outcome {
            if let Some(c) = result.get("nextCursor").and_then(Value::as_str) {
                self.issued_cursors.insert(c.to_owned());
            }
        }
    }

    /// The id of the client's `initialize` request, once it sent one.
    pub fn peer_initialize_id(&self) -> Option<&Id> {
        self.peer_initialize.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use crate::level::Role;
    use crate::session::Session;
    use crate::version::Version;
    use mcpspec_wire::Message;
    use serde_json::json;

    fn ids(session: &mut Session, msg: &Message) -> Vec<&'static str> {
        session
            .inbound(msg, 0)
            .iter()
            .map(|v| v.requirement.id)
            .collect()
    }

    fn request(id: i64, method: &str, params: serde_json::Value) -> Message {
        Message::request(mcpspec_wire::Id::from(id), method, Some(params))
    }

    #[test]
    fn the_handshake_phases_bound_what_a_client_may_send() {
        let mut s = Session::new(Role::Server, Some(Version::V2025_06_18));
        assert_eq!(
            ids(&mut s, &request(1, "tools/list", json!({}))),
            ["lifecycle.initialize.first"]
        );
        assert!(ids(&mut s, &request(2, "server/discover", json!({}))).is_empty());
        assert!(ids(&mut s, &request(3, "initialize", json!({}))).is_empty());
        assert!(ids(&mut s, &request(4, "ping", json!({}))).is_empty());
        assert_eq!(
            ids(&mut s, &request(5, "tools/list", json!({}))),
            ["lifecycle.client.no-requests-before-response"]
        );
        let cancel =
            Message::notification("notifications/cancelled", Some(json!({"requestId": 3})));
        assert_eq!(
            ids(&mut s, &cancel),
            ["cancellation.initialize-not-cancelled"]
        );
        s.outbound(
            &Message::result(3.into(), json!({"protocolVersion": "2025-06-18"})),
            0,
        );
        assert_eq!(
            ids(&mut s, &request(6, "tools/list", json!({}))),
            ["lifecycle.client.initialized-notification"]
        );
        let initialized = Message::notification("notifications/initialized", None);
        assert!(ids(&mut s, &initialized).is_empty());
        assert!(ids(&mut s, &request(7, "tools/list", json!({}))).is_empty());
    }

    #[test]
    fn cursors_come_back_exactly_as_issued() {
        let mut s = Session::new(Role::Server, Some(Version::V2025_11_25));
        s.inbound(&request(1, "initialize", json!({})), 0);
        s.outbound(
            &Message::result(1.into(), json!({"protocolVersion": "2025-11-25"})),
            0,
        );
        s.inbound(&Message::notification("notifications/initialized", None), 0);
        s.inbound(&request(2, "tools/list", json!({})), 0);
        s.outbound(
            &Message::result(2.into(), json!({"tools": [], "nextCursor": "abc"})),
            0,
        );
        assert!(ids(&mut s, &request(3, "tools/list", json!({"cursor": "abc"}))).is_empty());
        assert_eq!(
            ids(&mut s, &request(4, "tools/list", json!({"cursor": "abcx"}))),
            ["pagination.client.opaque-cursor"]
        );
    }
}
