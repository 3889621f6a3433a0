//! `subscriptions/listen` (2026-07-28) over stdio: long-lived notification
//! streams that replace `resources/subscribe` and the HTTP GET stream.
//!
//! Spec: `basic/utilities/subscriptions`; schema: `SubscriptionsListenRequest`,
//! `SubscriptionFilter`, `SubscriptionsAcknowledgedNotification`,
//! `SubscriptionsListenResult`.
//!
//! ```text
//!   subscriptions/listen {notifications: filter}  (id L)
//!     │  filter checked (-32602 when malformed), id L not already in use
//!     ├─► notifications/subscriptions/acknowledged {notifications: honoured, _meta: {subscriptionId: L}}
//!     │        honoured ⊆ filter: resourceSubscriptions that name a readable resource;
//!     │        the list_changed flags are left out (the reference's lists never change)
//!     ├─► notifications/resources/updated {uri, _meta: {subscriptionId: L}}
//!     │        at each counter change (every 250 ms), when the counter URI is honoured
//!     └─► no response while the stream is open
//!   notifications/cancelled {requestId: L}  ─► the stream ends, unanswered
//!   stdin EOF                               ─► the server exits (an abrupt close: no result)
//! ```
//!
//! The result (`SubscriptionsListenResult`) is owed only when the *server*
//! ends a stream; this one never does, so it never sends one.
//!
//! Over HTTP a listen stream is the SSE response to the listen POST, which
//! the reference's HTTP driver does not implement: a server built for it
//! ([`ReferenceServer::expecting_stateless`]) still answers -32601.
//!
//! Faults (`fault`): `listen-no-ack` never acknowledges, `listen-unrequested`
//! delivers counter updates on every stream, `listen-no-subscription-id`
//! leaves the id out of delivered notifications, `listen-ack-superset` claims
//! every list_changed type in the acknowledgement.

use std::collections::BTreeSet;

use mcpspec_wire::{Id, Message, Request};
use serde_json::{json, Map, Value};

use crate::error::RpcError;
use crate::fault::Fault;
use crate::outbox::Outbox;
use crate::resources;
use crate::server::{ReferenceServer, Reply};

pub(crate) const METHOD: &str = "subscriptions/listen";
/// `_meta` key naming the stream a notification belongs to.
pub(crate) const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The boolean members of `SubscriptionFilter`: the list_changed types.
const LIST_CHANGED: [&str; 3] = [
    "toolsListChanged",
    "promptsListChanged",
    "resourcesListChanged",
];

/// One open `subscriptions/listen` stream.
#[derive(Debug, Clone)]
pub(crate) struct Listen {
    /// The listen request's id: the subscription id.
    pub id: Id,
    /// The resource URIs whose updates it delivers.
    pub uris: BTreeSet<String>,
}

/// The requested resource URIs of a `SubscriptionFilter`, after checking
/// its members' types (unknown members are ignored).
fn requested_uris(params: &Map<String, Value>) -> Result<Vec<String>, RpcError> {
    let Some(Value::Object(filter)) = params.get("notifications") else {
        return Err(RpcError::invalid_params(
            "subscriptions/listen requires notifications (a SubscriptionFilter object)",
        ));
    };
    for key in LIST_CHANGED {
        if filter.get(key).is_some_and(|v| !v.is_boolean()) {
            return Err(RpcError::invalid_params(format!(
                "notifications.{key} must be a boolean"
            )));
        }
    }
    match filter.get("resourceSubscriptions") {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|u| u.as_str().map(str::to_owned))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| {
                RpcError::invalid_params("notifications.resourceSubscriptions must hold strings")
            }),
        Some(_) => Err(RpcError::invalid_params(
            "notifications.resourceSubscriptions must be an array of URIs",
        )),
    }
}

impl ReferenceServer {
    /// True when a listen stream with this id is open.
    pub(crate) fn is_listening(&self, id: &Id) -> bool {
        self.listens.iter().any(|l| l.id == *id)
    }

    /// Opens a stream: checks the filter, acknowledges what it honours, and
    /// leaves the request unanswered.
    pub(crate) fn listen(&mut self, now_ms: u64, req: &Request, out: &mut Outbox) -> Reply {
        let params = match crate::handlers::params_object(req.params.as_ref()) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let requested = match requested_uris(&params) {
            Ok(u) => u,
            Err(e) => return Reply::Now(Err(e)),
        };
        if self.is_listening(&req.id) {
            return Reply::Now(Err(RpcError::invalid_request(format!(
                "request id {} already names an open subscription",
                req.id
            ))));
        }
        // Only resources that exist can change; the others are left out.
        let uris: BTreeSet<String> = requested
            .into_iter()
            .filter(|u| resources::read(u, now_ms, self.faults).is_some())
            .collect();
        let mut honoured = Map::new();
        if !uris.is_empty() {
            honoured.insert("resourceSubscriptions".into(), json!(uris));
        }
        if self.faults.has(Fault::ListenAckSuperset) {
            // The fault: types nobody asked for (and nothing will deliver).
            for key in LIST_CHANGED {
                honoured.insert(key.into(), json!(true));
            }
        }
        if !self.faults.has(Fault::ListenNoAck) {
            let ack = json!({
                "notifications": honoured,
                "_meta": { SUBSCRIPTION_ID: req.id.to_value() },
            });
            out.send(&Message::notification(ACKNOWLEDGED, Some(ack)));
        }
        self.listens.push(Listen {
            id: req.id.clone(),
            uris,
        });
        self.update_counter_timer(now_ms);
        Reply::Never
    }

    /// `notifications/cancelled` for a listen request: the stream ends,
    /// without a response. False when `id` names no open stream.
    pub(crate) fn end_listen(&mut self, id: &Id, now_ms: u64) -> bool {
        let before = self.listens.len();
        self.listens.retain(|l| l.id != *id);
        if self.listens.len() == before {
            return false;
        }
        self.update_counter_timer(now_ms);
        true
    }

    /// True when some stream delivers updates of `uri`.
    pub(crate) fn listened(&self, uri: &str) -> bool {
        self.listens.iter().any(|l| self.delivers(l, uri))
    }

    fn delivers(&self, listen: &Listen, uri: &str) -> bool {
        listen.uris.contains(uri) || self.faults.has(Fault::ListenUnrequested)
    }

    /// `notifications/resources/updated` for `uri` on every stream that
    /// delivers it, tagged with the stream's id.
    pub(crate) fn deliver_update(&self, uri: &str, out: &mut Outbox) {
        for listen in self.listens.iter().filter(|l| self.delivers(l, uri)) {
            let mut params = json!({ "uri": uri });
            if !self.faults.has(Fault::ListenNoSubscriptionId) {
                params["_meta"] = json!({ SUBSCRIPTION_ID: listen.id.to_value() });
            }
            out.send(&Message::notification(
                "notifications/resources/updated",
                Some(params),
            ));
        }
    }
}
