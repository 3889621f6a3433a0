//! One HTTP request to the peer: read the body (bounded), decide the answer
//! under the shared state's lock, report it, answer.
//!
//! ```text
//!   request ─► body (≤ max_line, ≤ BODY_TIMEOUT) ─► route ─► (Reply, Deliver)
//!           ─► Http record (request and response side) ─► Deliver: Frame | FrameError | Closed
//!           ─► the reply to hyper (a full body, or an SSE body fed by `send`)
//! ```
//!
//! The record always comes first, so the runner sees a POST's headers before
//! its message. A POST's response stream is registered before its frame is
//! reported: the scripted server's answer always has somewhere to go.
//!
//! | request | answer | reported |
//! |---|---|---|
//! | any, foreign `Origin` | 403 | record only |
//! | any, body over `max_line` | 413 | record, `FrameError` (oversize) |
//! | any, after [`super::HttpPeer::close`] | 503 | record only |
//! | POST /mcp, wrong or ended `Mcp-Session-Id` | 404 | record only |
//! | POST /mcp, none while a session is live (not `initialize`) | 400 | record only |
//! | POST /mcp, body not a JSON-RPC message | 400, -32700 / -32600 body | record, frame |
//! | POST /mcp, notifications / responses only | 202, no body | record, frame |
//! | POST /mcp, requests | 200 SSE (+ `Mcp-Session-Id` for `initialize`) | record, frame |
//! | GET /mcp without `Accept: text/event-stream` | 406 | record only |
//! | GET /mcp while the GET stream is open | 409 | record only |
//! | GET /mcp, `Last-Event-ID` of a cut stream | 200 SSE, that stream resumed (`super::resume`) | record |
//! | GET /mcp | 200 SSE, the standing stream (`Via::Get`) | record |
//! | DELETE /mcp with the live session id | 200, session ended | record, `Closed` |
//! | GET /sse while the stream is open | 409 | record only |
//! | GET /sse | 200 SSE, `endpoint` event first (`Via::Legacy`) | record |
//! | POST /messages?session=ID, ID live | 202 | record, frame |
//! | POST /messages, no or unknown ID | 400 / 404 | record only |
//! | other method on a known path / other path | 405 (`Allow`) / 404 | record only |
//!
//! A POST carrying `initialize` without `Mcp-Session-Id` always opens a new
//! session; the one it replaces is then unknown (404), as is one ended by
//! DELETE or, for the legacy transport, by the client closing its stream.
//!
//! Headers the client gets wrong (`Accept` on POST, `Content-Type`,
//! `MCP-Protocol-Version`) are not refused: the record carries them and the
//! runner judges. Error bodies are JSON-RPC errors with `id: null`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderValue, ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_TYPE, ORIGIN};
use hyper::http::request::Parts;
use hyper::{Method, Request, Response, StatusCode};
use mcpspec_wire::{classify, FrameError, Inbound, Message};
use tokio::time::Instant;

use super::sse::SseBody;
use super::state::{Inner, Outlet, PostStream, Shared, Verdict};
use super::{ServeKind, LEGACY_POST_PATH, LEGACY_SSE_PATH, MCP_PATH};
use crate::client::response_into;
use crate::event::{body_text, keep_request_header, recorded_value, Event, HttpRecord, Via};
use crate::streamable::SESSION_HEADER;

/// Time a client has to send a request's whole body.
const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The body type of every response.
pub(super) type Body = UnsyncBoxBody<Bytes, Infallible>;

/// What a request is answered with, before it becomes a hyper response.
struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: ReplyBody,
}

enum ReplyBody {
    Full(Bytes),
    Sse(SseBody),
}

/// What the runner is told after the record.
enum Deliver {
    Nothing,
    /// The body, as one frame (a batch stays one frame, as on the client side).
    Frame(Vec<u8>),
    Oversize {
        prefix: Vec<u8>,
        len: usize,
    },
    Closed(String),
}

/// Serves one request (hyper's service function).
pub(super) async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<Body> {
    let (parts, incoming) = req.into_parts();
    // Without a gate a request is numbered on arrival; with one, once the
    // gate has let it through (its own answers are `Raw`).
    let early = shared
        .gate
        .is_none()
        .then(|| via_of(&shared, &parts.method));
    let mut record = request_side(&parts, None);
    let read = read_body(incoming, shared.max_line).await;
    record.request_body = body_text(&read.bytes);
    let gated = match (&shared.gate, &read.end) {
        (Some(gate), BodyEnd::Whole) => gate_reply(&shared, gate.as_ref(), &parts, &read.bytes),
        _ => None,
    };
    let via = match (gated.is_some(), early) {
        (true, _) => {
            let mut inner = shared.lock();
            inner.others += 1;
            Via::Raw(inner.others)
        }
        (false, Some(v)) => v,
        (false, None) => via_of(&shared, &parts.method),
    };
    let (reply, deliver) = match (gated, read.end) {
        (Some(reply), _) => (reply, Deliver::Nothing),
        (None, BodyEnd::Whole) => route(&shared, &parts, via, read.bytes),
        (None, BodyEnd::Oversize(len)) => {
            let reply = reject(StatusCode::PAYLOAD_TOO_LARGE, -32000, "Payload Too Large");
            let prefix = read.bytes[..FrameError::KEPT.min(read.bytes.len())].to_vec();
            (reply, Deliver::Oversize { prefix, len })
        }
        (None, BodyEnd::Failed(why)) => {
            record.error = Some(why);
            (
                reject(
                    StatusCode::BAD_REQUEST,
                    -32000,
                    "Bad Request: the body did not arrive whole",
                ),
                Deliver::Nothing,
            )
        }
    };
    response_into(&mut record, reply.status.as_u16(), &reply.headers);
    record.body = match &reply.body {
        ReplyBody::Full(b) => body_text(b),
        ReplyBody::Sse(_) => "SSE stream".to_owned(),
    };
    let emitter = &shared.emitter;
    // The record and the body's frame go on before the case may end
    // (see `inflight`).
    let _delivering = emitter.inflight.enter();
    emitter.emit(via, Event::Http(Box::new(record))).await;
    match deliver {
        Deliver::Nothing => {}
        Deliver::Frame(bytes) => {
            emitter.frame(via, bytes).await;
        }
        Deliver::Oversize { prefix, len } => {
            emitter.oversize(via, prefix, len, shared.max_line).await
        }
        Deliver::Closed(why) => {
            emitter.emit(via, Event::Closed(why)).await;
        }
    }
    into_response(reply)
}

/// The gate's answer to a request, if it gives one.
fn gate_reply(
    shared: &Shared,
    gate: &dyn super::Gate,
    parts: &Parts,
    body: &[u8],
) -> Option<Reply> {
    let (status, headers, body) = super::gate::ask(gate, shared.port, parts, body)?;
    Some(Reply {
        status,
        headers,
        body: ReplyBody::Full(Bytes::from(body)),
    })
}

/// The stream a request's events are reported on.
fn via_of(shared: &Shared, method: &Method) -> Via {
    let mut inner = shared.lock();
    match *method {
        Method::POST => {
            inner.posts += 1;
            Via::Post(inner.posts)
        }
        Method::GET if shared.kind == ServeKind::LegacySse => Via::Legacy,
        Method::GET => Via::Get,
        Method::DELETE => Via::Delete,
        _ => {
            inner.others += 1;
            Via::Raw(inner.others)
        }
    }
}

/// Decides the answer (the lock is held only here, and nothing here waits).
fn route(shared: &Arc<Shared>, parts: &Parts, via: Via, body: Vec<u8>) -> (Reply, Deliver) {
    if !origin_allowed(&parts.headers, shared.port) {
        let msg = "Forbidden: Origin must be this server's own (http://127.0.0.1:PORT or http://localhost:PORT)";
        return (reject(StatusCode::FORBIDDEN, -32000, msg), Deliver::Nothing);
    }
    let mut inner = shared.lock();
    if inner.closed {
        let reply = reject(
            StatusCode::SERVICE_UNAVAILABLE,
            -32000,
            "the server is closing",
        );
        return (reply, Deliver::Nothing);
    }
    let path = parts.uri.path();
    let method = &parts.method;
    match (shared.kind, path) {
        (ServeKind::Streamable, MCP_PATH) if method == Method::POST => {
            // `via_of` numbers every POST.
            let n = via.post().unwrap_or_default();
            post(&mut inner, &parts.headers, n, body)
        }
        (ServeKind::Streamable, MCP_PATH) if method == Method::GET => {
            (get(&mut inner, &parts.headers), Deliver::Nothing)
        }
        (ServeKind::Streamable, MCP_PATH) if method == Method::DELETE => {
            delete(&mut inner, &parts.headers)
        }
        (ServeKind::Streamable, MCP_PATH) => (not_allowed("GET, POST, DELETE"), Deliver::Nothing),
        (ServeKind::LegacySse, LEGACY_SSE_PATH) if method == Method::GET => {
            (open_legacy(shared, &mut inner), Deliver::Nothing)
        }
        (ServeKind::LegacySse, LEGACY_SSE_PATH) => (not_allowed("GET"), Deliver::Nothing),
        (ServeKind::LegacySse, LEGACY_POST_PATH) if method == Method::POST => {
            post_legacy(&inner, parts.uri.query(), body)
        }
        (ServeKind::LegacySse, LEGACY_POST_PATH) => (not_allowed("POST"), Deliver::Nothing),
        _ => (
            reject(StatusCode::NOT_FOUND, -32000, "Not Found"),
            Deliver::Nothing,
        ),
    }
}

/// A Streamable HTTP POST.
fn post(inner: &mut Inner, headers: &HeaderMap, n: u64, body: Vec<u8>) -> (Reply, Deliver) {
    let shape = Shape::of(&body);
    let session = header(headers, SESSION_HEADER);
    let opens_session = shape.initialize && session.is_none();
    if !opens_session {
        if let Some(reply) = session_refusal(inner.verdict(session.as_deref())) {
            return (reply, Deliver::Nothing);
        }
    }
    if let Some((code, message)) = shape.invalid {
        let reply = reject(StatusCode::BAD_REQUEST, code, &message);
        return (reply, Deliver::Frame(body));
    }
    if shape.requests.is_empty() {
        return (empty(StatusCode::ACCEPTED), Deliver::Frame(body));
    }
    let (tx, sse) = SseBody::channel(None);
    let waiting = shape.requests.into_iter().collect();
    inner.post_streams.insert(
        n,
        PostStream {
            outlet: Outlet::new(tx, Some(n)),
            waiting,
        },
    );
    let mut reply = stream_reply(sse);
    if opens_session {
        let id = inner.new_session();
        if let Ok(v) = HeaderValue::from_str(&id) {
            reply.headers.insert(SESSION_HEADER, v);
        }
    }
    (reply, Deliver::Frame(body))
}

/// A Streamable HTTP GET: the standing stream.
fn get(inner: &mut Inner, headers: &HeaderMap) -> Reply {
    if !accepts(headers, "text/event-stream") {
        return reject(
            StatusCode::NOT_ACCEPTABLE,
            -32000,
            "Not Acceptable: Accept must list text/event-stream",
        );
    }
    if let Some(reply) = session_refusal(inner.verdict(header(headers, SESSION_HEADER).as_deref()))
    {
        return reply;
    }
    // A GET naming the last event of a cut response stream resumes it.
    if let Some(sse) = header(headers, "last-event-id").and_then(|id| inner.resume(&id)) {
        return stream_reply(sse);
    }
    if inner.standing_open() {
        return reject(
            StatusCode::CONFLICT,
            -32000,
            "Conflict: a GET stream is already open for this session",
        );
    }
    let (tx, sse) = SseBody::channel(None);
    inner.standing = Some(Outlet::new(tx, Some(0)));
    stream_reply(sse)
}

/// A Streamable HTTP DELETE: ends the live session.
fn delete(inner: &mut Inner, headers: &HeaderMap) -> (Reply, Deliver) {
    // Only the live session can be ended: no id is 400, any other id 404.
    let verdict = match header(headers, SESSION_HEADER) {
        None => Verdict::Missing,
        Some(id) if inner.session.as_deref() == Some(id.as_str()) => Verdict::Ok,
        Some(_) => Verdict::Unknown,
    };
    if let Some(reply) = session_refusal(verdict) {
        return (reply, Deliver::Nothing);
    }
    inner.end_session();
    let why = "the client ended the session (DELETE)".to_owned();
    (empty(StatusCode::OK), Deliver::Closed(why))
}

/// GET /sse: a new legacy session whose stream opens with `endpoint`.
fn open_legacy(shared: &Arc<Shared>, inner: &mut Inner) -> Reply {
    if inner.standing_open() {
        return reject(
            StatusCode::CONFLICT,
            -32000,
            "Conflict: the SSE stream is already open",
        );
    }
    let id = inner.new_session();
    let watcher = Arc::downgrade(shared);
    let mine = id.clone();
    // When the client closes the stream, its session ends (unless the peer
    // itself closed, or the session was replaced meanwhile).
    let on_end = Box::new(move || {
        let Some(shared) = watcher.upgrade() else {
            return;
        };
        let mut inner = shared.lock();
        if inner.closed || inner.session.as_deref() != Some(mine.as_str()) {
            return;
        }
        inner.end_session();
        drop(inner);
        shared.emitter.emit_now(
            Via::Legacy,
            Event::Closed("the client closed the SSE stream".into()),
        );
    });
    let (tx, sse) = SseBody::channel(Some(on_end));
    let mut outlet = Outlet::new(tx, None);
    let endpoint = format!("{LEGACY_POST_PATH}?session={id}");
    // The body is returned below, so its receiving side is alive.
    outlet.push_event("endpoint", endpoint.as_bytes());
    inner.standing = Some(outlet);
    stream_reply(sse)
}

/// POST /messages?session=ID: the message is answered on the stream.
fn post_legacy(inner: &Inner, query: Option<&str>, body: Vec<u8>) -> (Reply, Deliver) {
    let id = query.and_then(|q| {
        q.split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(k, _)| *k == "session")
            .map(|(_, v)| v)
    });
    let verdict = match id {
        None => Verdict::Missing,
        Some(id) if inner.session.as_deref() == Some(id) => Verdict::Ok,
        Some(_) => Verdict::Unknown,
    };
    match verdict {
        Verdict::Ok => (empty(StatusCode::ACCEPTED), Deliver::Frame(body)),
        Verdict::Missing => {
            let msg = "Bad Request: the session query parameter is required";
            (
                reject(StatusCode::BAD_REQUEST, -32000, msg),
                Deliver::Nothing,
            )
        }
        Verdict::Unknown => (
            reject(StatusCode::NOT_FOUND, -32000, "Session not found"),
            Deliver::Nothing,
        ),
    }
}

fn session_refusal(verdict: Verdict) -> Option<Reply> {
    match verdict {
        Verdict::Ok => None,
        Verdict::Missing => Some(reject(
            StatusCode::BAD_REQUEST,
            -32000,
            "Bad Request: Mcp-Session-Id header is required",
        )),
        Verdict::Unknown => Some(reject(StatusCode::NOT_FOUND, -32000, "Session not found")),
    }
}

/// What a POST body holds, as far as the peer cares.
#[derive(Debug, Default)]
struct Shape {
    /// Ids of the requests it carries (single or batched).
    requests: Vec<mcpspec_wire::Id>,
    /// It carries an `initialize` request.
    initialize: bool,
    /// Not a message: the JSON-RPC error code and message to answer with.
    invalid: Option<(i64, String)>,
}

impl Shape {
    fn of(body: &[u8]) -> Self {
        let mut shape = Shape::default();
        let mut add = |m: &Message| {
            if let Message::Request(r) = m {
                shape.initialize |= r.method == "initialize";
                shape.requests.push(r.id.clone());
            }
        };
        match classify(body) {
            Ok(Inbound::Single(m)) => add(&m),
            Ok(Inbound::Batch(items)) => items.iter().flatten().for_each(add),
            Err(e) if e.kind.is_parse_error() => {
                shape.invalid = Some((-32700, format!("Parse error: {e}")))
            }
            Err(e) => shape.invalid = Some((-32600, format!("Invalid Request: {e}"))),
        }
        shape
    }
}

/// True without `Origin`, or with this server's own origin (DNS rebinding
/// protection: `basic/transports#security-warning`).
fn origin_allowed(headers: &HeaderMap, port: u16) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    origin == format!("http://127.0.0.1:{port}") || origin == format!("http://localhost:{port}")
}

/// Whether `Accept` lists a media type (parameters ignored; wildcards do not count).
fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get_all(ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|range| {
            range
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case(media_type)
        })
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// The request side of a record, as the serving transport keeps it: the
/// request target with its query, under `as_path` when given (the proxy
/// records an upstream's endpoint under the harness's own path for it).
pub(crate) fn request_side(parts: &Parts, as_path: Option<&str>) -> HttpRecord {
    let path = as_path.unwrap_or(parts.uri.path());
    let target = match parts.uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_owned(),
    };
    HttpRecord {
        method: parts.method.as_str().to_owned(),
        target,
        request_headers: parts
            .headers
            .iter()
            .filter(|(n, _)| keep_request_header(n.as_str(), false))
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    recorded_value(n.as_str(), v.as_bytes()),
                )
            })
            .collect(),
        ..HttpRecord::default()
    }
}

/// How reading a body ended.
enum BodyEnd {
    Whole,
    /// Over the limit; the length seen when reading stopped.
    Oversize(usize),
    Failed(String),
}

struct ReadBody {
    /// What was read (at most the limit).
    bytes: Vec<u8>,
    end: BodyEnd,
}

async fn read_body(mut body: Incoming, max: usize) -> ReadBody {
    let deadline = Instant::now() + BODY_TIMEOUT;
    let mut bytes = Vec::new();
    loop {
        let end = match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => BodyEnd::Failed(format!("body not complete within {BODY_TIMEOUT:?}")),
            Ok(None) => BodyEnd::Whole,
            Ok(Some(Err(e))) => BodyEnd::Failed(format!("reading the body failed: {e}")),
            Ok(Some(Ok(frame))) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                let len = bytes.len() + data.len();
                if len > max {
                    let room = max - bytes.len();
                    bytes.extend_from_slice(&data[..room]);
                    BodyEnd::Oversize(len)
                } else {
                    bytes.extend_from_slice(&data);
                    continue;
                }
            }
        };
        return ReadBody { bytes, end };
    }
}

/// An HTTP error with a JSON-RPC error body (`id: null`).
fn reject(status: StatusCode, code: i64, message: &str) -> Reply {
    let body = Message::error(None, code, message, None).to_json();
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Reply {
        status,
        headers,
        body: ReplyBody::Full(Bytes::from(body)),
    }
}

fn not_allowed(allow: &'static str) -> Reply {
    let mut reply = reject(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method Not Allowed");
    reply.headers.insert(ALLOW, HeaderValue::from_static(allow));
    reply
}

fn empty(status: StatusCode) -> Reply {
    Reply {
        status,
        headers: HeaderMap::new(),
        body: ReplyBody::Full(Bytes::new()),
    }
}

fn stream_reply(sse: SseBody) -> Reply {
    let mut headers = HeaderMap::new();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    Reply {
        status: StatusCode::OK,
        headers,
        body: ReplyBody::Sse(sse),
    }
}

fn into_response(reply: Reply) -> Response<Body> {
    let body = match reply.body {
        ReplyBody::Full(b) if b.is_empty() => Empty::new().boxed_unsync(),
        ReplyBody::Full(b) => Full::new(b).boxed_unsync(),
        ReplyBody::Sse(s) => s.boxed_unsync(),
    };
    let mut resp = Response::new(body);
    *resp.status_mut() = reply.status;
    *resp.headers_mut() = reply.headers;
    resp
}

#[cfg(test)]
#[path = "handle_tests.rs"]
mod tests;
