//! The stateless protocol (2026-07-28) as a client speaks it: there is no
//! handshake, so every request carries, in `params._meta`, the protocol
//! version and the client's capabilities (and, as a SHOULD, clientInfo).
//!
//! [`Conn::send`](super::Conn::send) stamps them on every request of a
//! 2026-07-28 case; members a scenario wrote itself are kept, so a scenario
//! can name another version or declare capabilities. A request meant to
//! lack them is written with `raw`, which is sent as it is; `initialize`
//! (the handshake era's request) is never stamped.

use mcpspec_engine::Lifecycle;
use mcpspec_wire::Message;
use serde_json::{json, Map, Value};

use super::Conn;

/// The `_meta` key of the request's protocol version.
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of the client's capabilities for this request.
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// The `_meta` key of the client's self-description.
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";

impl Conn {
    /// The request with its stateless `_meta` filled in, when the case's
    /// version is stateless and the message a request; `None` otherwise.
    pub(super) fn with_request_meta(&self, msg: &Message) -> Option<Message> {
        if self.version.lifecycle() != Lifecycle::Stateless {
            return None;
        }
        let Message::Request(r) = msg else {
            return None;
        };
        if r.method == "initialize" {
            // The handshake era's own request, sent as that era sends it
            // (a client of both eras falling back from server/discover).
            return None;
        }
        let mut params = match &r.params {
            None => Map::new(),
            Some(Value::Object(p)) => p.clone(),
            // Params that are not an object cannot carry _meta: sent as written.
            Some(_) => return None,
        };
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(meta) = meta else {
            return None; // a scenario's deliberately odd _meta stays as written
        };
        meta.entry(PROTOCOL_VERSION_KEY)
            .or_insert_with(|| json!(self.version.as_str()));
        meta.entry(CLIENT_CAPABILITIES_KEY).or_insert_with(|| {
            self.client_capabilities
                .clone()
                .unwrap_or_else(|| json!({}))
        });
        meta.entry(CLIENT_INFO_KEY)
            .or_insert_with(|| json!({ "name": "mcpspec", "version": env!("CARGO_PKG_VERSION") }));
        let mut stamped = r.clone();
        stamped.params = Some(Value::Object(params));
        Some(Message::Request(stamped))
    }
}
