//! Streamable HTTP at `/mcp` (2025-03-26 and later).
//!
//! | request | answer |
//! |---|---|
//! | any, with a foreign `Origin` | 403 |
//! | POST whose Accept lacks `application/json` or `text/event-stream` | 406 |
//! | POST whose Content-Type is not `application/json` | 415 |
//! | POST of a body that is not a JSON-RPC message | 400, JSON-RPC error body (-32700 / -32600) |
//! | POST of a 2026-07-28 request (`_meta`, or header without session) | no session needed: see `stateless` |
//! | POST `initialize` without `Mcp-Session-Id` | new session: its answer with `Mcp-Session-Id` |
//! | POST, GET or DELETE without `Mcp-Session-Id` | 400 |
//! | … with an unknown or ended session id | 404 |
//! | … with a bad `MCP-Protocol-Version` (sessions at 2025-06-18+) | 400 |
//! | POST of a `tools/call` while another POST stream of the session (2026-07-28: of the server) is open, with the `http-concurrent-post-refused` fault | 409 |
//! | POST of notifications / responses only | 202, no body |
//! | POST of requests | 200 `application/json` (the answer alone) or `text/event-stream` |
//! | GET with Accept `text/event-stream` | the standalone SSE stream (or, with `Last-Event-ID`, a resumed one) |
//! | GET without it | 406 |
//! | DELETE | 200, the session ends |
//!
//! Checks run in that order; the session's own rules (version header,
//! routing) are applied by its task (`session`). Error bodies: `checks`.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use mcpspec_reference::Fault;

use crate::checks::{self, EVENT_STREAM, JSON, LAST_EVENT_ID, SESSION_HEADER, VERSION_HEADER};
use crate::messages::{self, Shape};
use crate::session::{self, ask, Cmd};
use crate::{App, Table};

/// The version whose POSTs need no session.
const STATELESS: &str = "2026-07-28";

pub(crate) async fn post(State(app): State<App>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(r) = forbidden(&app, &headers) {
        return r;
    }
    let accepted = checks::accepts(&headers, JSON) && checks::accepts(&headers, EVENT_STREAM);
    if !accepted && !app.has(Fault::HttpAcceptNotChecked) {
        return checks::reject(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list both application/json and text/event-stream",
        );
    }
    if !checks::content_type_is_json(&headers) && !app.has(Fault::HttpContentTypeNotChecked) {
        return checks::reject(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Unsupported Media Type: Content-Type must be application/json",
        );
    }
    let shape = Shape::of(&body);
    let version = checks::header_string(&headers, VERSION_HEADER);
    let session_id = checks::header_string(&headers, SESSION_HEADER);
    let stateless_header = session_id.is_none() && version.as_deref() == Some(STATELESS);
    if !shape.is_invalid() && (stateless_header || messages::claims_stateless(&body)) {
        // 2026-07-28 POSTs have no session: the fault counts the server's streams.
        if refuses_concurrent(&app, app.open_post_streams(), &body) {
            return concurrent_refusal();
        }
        return crate::stateless::post(&app, body, version, &headers).await;
    }
    match session_id {
        Some(id) => match app.lookup(Table::Streamable, &id) {
            Some(tx) => ask(&tx, |reply| Cmd::Post {
                body,
                version,
                reply,
            })
            .await
            .unwrap_or_else(|| unknown_session(&app)),
            None if shape.is_parse_error() => session::stateless(&app, &body),
            None => unknown_session(&app),
        },
        None if shape.is_initialize() => session::create(app, body, version).await,
        None if shape.is_invalid() || app.has(Fault::HttpMissingSessionAccepted) => {
            session::stateless(&app, &body)
        }
        None => missing_session(),
    }
}

pub(crate) async fn get(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(r) = forbidden(&app, &headers) {
        return r;
    }
    if !checks::accepts(&headers, EVENT_STREAM) {
        return checks::reject(
            StatusCode::NOT_ACCEPTABLE,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    if app.has(Fault::HttpGet404) {
        return checks::empty(StatusCode::NOT_FOUND);
    }
    let last_event_id = checks::header_string(&headers, LAST_EVENT_ID);
    let version = checks::header_string(&headers, VERSION_HEADER);
    with_session(&app, &headers, |reply| Cmd::Get {
        last_event_id,
        version,
        reply,
    })
    .await
}

pub(crate) async fn delete(State(app): State<App>, headers: HeaderMap) -> Response {
    if let Some(r) = forbidden(&app, &headers) {
        return r;
    }
    let version = checks::header_string(&headers, VERSION_HEADER);
    with_session(&app, &headers, |reply| Cmd::Delete { version, reply }).await
}

async fn with_session(
    app: &App,
    headers: &HeaderMap,
    make: impl FnOnce(tokio::sync::oneshot::Sender<Response>) -> Cmd,
) -> Response {
    let Some(id) = checks::header_string(headers, SESSION_HEADER) else {
        return missing_session();
    };
    match app.lookup(Table::Streamable, &id) {
        Some(tx) => ask(&tx, make).await.unwrap_or_else(|| unknown_session(app)),
        None => unknown_session(app),
    }
}

/// The `http-concurrent-post-refused` fault: a `tools/call` (the rest of a
/// session is left alone) while `open` POST streams are open is refused.
pub(crate) fn refuses_concurrent(app: &App, open: usize, body: &[u8]) -> bool {
    app.has(Fault::HttpConcurrentPostRefused)
        && open > 0
        && serde_json::from_slice::<serde_json::Value>(body)
            .is_ok_and(|v| v.get("id").is_some() && v["method"] == "tools/call")
}

/// The fault's 409.
pub(crate) fn concurrent_refusal() -> Response {
    checks::reject(
        StatusCode::CONFLICT,
        "Conflict: another request's stream is still open",
    )
}

/// 403 for a foreign Origin (unless the fault lets it through).
pub(crate) fn forbidden(app: &App, headers: &HeaderMap) -> Option<Response> {
    forbidden_unless(app, headers, Fault::HttpForeignOriginAccepted)
}

/// 403 for a foreign Origin, unless `fault` (the transport's own
/// origin fault) lets it through.
pub(crate) fn forbidden_unless(app: &App, headers: &HeaderMap, fault: Fault) -> Option<Response> {
    (!app.has(fault) && !checks::origin_allowed(headers)).then(|| {
        checks::reject(
            StatusCode::FORBIDDEN,
            "Forbidden: Origin is not allowed (only localhost, 127.0.0.1 and [::1])",
        )
    })
}

fn missing_session() -> Response {
    checks::reject(
        StatusCode::BAD_REQUEST,
        "Bad Request: Mcp-Session-Id header is required",
    )
}

/// 404 (or, with the fault, 400) for a session id that names no session.
fn unknown_session(app: &App) -> Response {
    let status = if app.has(Fault::HttpUnknownSession400) {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::NOT_FOUND
    };
    checks::reject(status, "Session not found")
}
