//! The legacy HTTP+SSE transport of 2024-11-05 at `/sse`.
//!
//! ```text
//!   GET /sse                         → 200 text/event-stream; first event:
//!                                        event: endpoint
//!                                        data: /message?sessionId=<32 hex digits>
//!                                      then `event: message` per server message
//!   POST /message?sessionId=<id>     → 202, empty body; the answer comes on the stream
//!   POST /message (no sessionId)     → 400
//!   POST /message?sessionId=unknown  → 404 at once
//!   stream closed by the client      → the session ends (its id → 404)
//! ```
//!
//! A foreign `Origin` is refused with 403 here too. The POST body is handed
//! to the session's server as it is: even a parse error is answered on the
//! stream (a -32700 message event), with 202 for the POST.

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use mcpspec_reference::Fault;

use crate::checks;
use crate::session::{self, ask, Cmd};
use crate::streamable::forbidden_unless;
use crate::{sse, App, Table, MESSAGE_PATH};

/// The first message of the `sse-endpoint-not-first` fault.
const HELLO: &str = r#"{"jsonrpc":"2.0","id":"mcpspec-reference-hello","method":"ping"}"#;

pub(crate) async fn open(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(r) = forbidden_unless(&app, &headers, Fault::SseForeignOriginAccepted) {
        return r;
    }
    let id = crate::ids::session_id(false);
    let (tx, resp) = sse::channel();
    if app.has(Fault::SseEndpointNotFirst) {
        let _ = tx.send(sse::event(None, "message", HELLO)); // the receiver is `resp`
    }
    let endpoint = format!("{MESSAGE_PATH}?sessionId={id}");
    let _ = tx.send(sse::event(None, "endpoint", &endpoint)); // the receiver is `resp`
    session::spawn_legacy(app, id, tx);
    resp
}

pub(crate) async fn post(
    State(app): State<App>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(r) = forbidden_unless(&app, &headers, Fault::SseForeignOriginAccepted) {
        return r;
    }
    let Some(id) = query.as_deref().and_then(|q| param(q, "sessionId")) else {
        return checks::reject(
            StatusCode::BAD_REQUEST,
            "Bad Request: the sessionId query parameter is required",
        );
    };
    match app.lookup(Table::Legacy, id) {
        Some(tx) => ask(&tx, |reply| Cmd::Post {
            body,
            version: None,
            reply,
        })
        .await
        .unwrap_or_else(unknown),
        None if app.has(Fault::SseUnknownSessionHang) => {
            app.closed().await;
            checks::empty(StatusCode::SERVICE_UNAVAILABLE)
        }
        None => unknown(),
    }
}

fn unknown() -> Response {
    checks::reject(StatusCode::NOT_FOUND, "Session not found")
}

/// The value of `name` in a query string (no percent-decoding: ids are hex).
fn param<'q>(query: &'q str, name: &str) -> Option<&'q str> {
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_params() {
        assert_eq!(param("sessionId=ab&x=1", "sessionId"), Some("ab"));
        assert_eq!(param("x=1&sessionId=", "sessionId"), Some(""));
        assert_eq!(param("session=ab", "sessionId"), None);
    }
}
