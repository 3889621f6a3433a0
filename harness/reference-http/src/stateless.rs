//! 2026-07-28 POSTs to `/mcp`: no `initialize`, no `Mcp-Session-Id`.
//!
//! A POST is a 2026-07-28 one when a request in its body says so itself
//! (`server/discover`, or `_meta` naming a non-handshake protocol version;
//! then any `Mcp-Session-Id` is ignored), or when it carries no session id
//! and its `MCP-Protocol-Version` header is `2026-07-28`.
//!
//! | case (one request in the body)                              | answer                          |
//! |--------------------------------------------------------------|---------------------------------|
//! | `_meta` protocolVersion ≠ `MCP-Protocol-Version`, or header missing | 400, error -32020 with the request's id, `data: { header, body }` |
//! | `Mcp-Method` / `Mcp-Name` missing or ≠ the body (`routing`)    | 400, error -32020, `data: { header, value, body }` |
//! | header 2026-07-28, `_meta` without protocolVersion or clientCapabilities | 400, -32602 (from the server)   |
//! | a method the server does not implement (-32601 from the server) | 404, -32601                    |
//! | anything else                                                | served by a session of its own; -32021 / -32022 with 400 |
//!
//! `http.header.mismatch-rejected`: the header must equal the body's
//! `_meta` value, and a missing required header is the same error.
//! `http.status.named-errors`: -32020, -32021 and -32022 go out with 400
//! (`messages::status_of`). Everything else (Accept, Content-Type, Origin,
//! 202 for notifications, SSE for slow answers) is as for sessions.

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use mcpspec_reference::{Fault, HEADER_MISMATCH};
use serde_json::{json, Value};

use crate::checks::{self, JSON};
use crate::messages::{single_meta_version, META_VERSION};

/// The `_meta` key of the client's capabilities.
const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
use crate::session::{ask, named_400, Cmd};
use crate::App;

/// Serves a 2026-07-28 POST whose `MCP-Protocol-Version` header is
/// `header`; `headers` are all of them (for the routing headers).
pub(crate) async fn post(
    app: &App,
    body: Bytes,
    header: Option<String>,
    headers: &HeaderMap,
) -> Response {
    let lenient = app.has(Fault::HttpHeaderMetaMismatchAccepted);
    if let Some((id, Some(meta))) = single_meta_version(&body) {
        let agree = header.as_deref() == Some(meta.as_str());
        if !agree && !lenient {
            return mismatch(app, id, header.as_deref(), &meta);
        }
    }
    // Mcp-Method and Mcp-Name must be there and agree with the body
    // (routers act on the headers): `routing`.
    if let Some(r) = crate::routing::refusal(app, headers, &body) {
        return routing_mismatch(app, r);
    }
    if app.is_closing() {
        return checks::empty(StatusCode::SERVICE_UNAVAILABLE);
    }
    let tx = crate::session::spawn_stateless(app.clone());
    let meta_invalid = meta_invalid(&body);
    let resp = ask(&tx, |reply| Cmd::Post {
        body,
        version: None,
        reply,
    })
    .await
    .unwrap_or_else(|| checks::empty(StatusCode::INTERNAL_SERVER_ERROR));
    status_by_error(app, meta_invalid, resp).await
}

/// True when the body is one request whose `_meta` lacks a field every
/// 2026-07-28 request must carry (`basic#meta`): the protocol version (a
/// string) or the client capabilities (an object).
fn meta_invalid(body: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    if v.get("method").is_none() || v.get("id").is_none() {
        return false;
    }
    let meta = v.pointer("/params/_meta");
    !(meta
        .and_then(|m| m.get(META_VERSION))
        .is_some_and(Value::is_string)
        && meta
            .and_then(|m| m.get(CLIENT_CAPABILITIES))
            .is_some_and(Value::is_object))
}

/// The statuses 2026-07-28 gives two errors the session answers with 200
/// (a JSON body, never an event stream): -32601, a method this server does
/// not implement, goes out with 404 (`streamable-http#protocol-version-header`);
/// -32602 for a request whose `_meta` lacks a required field, with 400
/// (`basic#meta`). Faults `http-method-not-found-200`, `http-meta-invalid-200`.
async fn status_by_error(app: &App, meta_invalid: bool, resp: Response) -> Response {
    let json = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes() == JSON.as_bytes());
    if resp.status() != StatusCode::OK || !json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return checks::empty(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let code = serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|v| v.pointer("/error/code").and_then(Value::as_i64));
    parts.status = match code {
        Some(-32601) if !app.has(Fault::HttpMethodNotFound200) => StatusCode::NOT_FOUND,
        Some(-32602) if meta_invalid && !app.has(Fault::HttpMetaInvalid200) => {
            StatusCode::BAD_REQUEST
        }
        _ => StatusCode::OK,
    };
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// -32020 for routing headers that are missing or disagree with the body.
fn routing_mismatch(app: &App, r: crate::routing::Refusal) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": r.id,
        "error": { "code": HEADER_MISMATCH, "message": r.message, "data": r.data },
    });
    let status = if named_400(app) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    checks::json_response(status, body.to_string().into_bytes(), JSON)
}

/// -32020 `HeaderMismatchError`, with status 400.
fn mismatch(app: &App, id: Value, header: Option<&str>, meta: &str) -> Response {
    let message = match header {
        Some(h) => format!(
            "header mismatch: MCP-Protocol-Version {h:?} differs from _meta {META_VERSION} {meta:?}"
        ),
        None => format!(
            "header mismatch: MCP-Protocol-Version is required and must equal _meta {META_VERSION} {meta:?}"
        ),
    };
    let body = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": HEADER_MISMATCH,
            "message": message,
            "data": { "header": header, "body": meta },
        },
    });
    let status = if named_400(app) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    checks::json_response(status, body.to_string().into_bytes(), JSON)
}
