//! `mcpspec proxy --listen ADDR --upstream URL`: a Streamable HTTP reverse
//! proxy in front of a real server, for real clients.
//!
//! ```text
//!  client ──request──► body read whole (bounded) ──► Tap::Message (client, Post(n))
//!         ──► upstream (a fresh HTTP/1.1 connection, same method, path, query, headers, body)
//!         ──► status + headers ──► Tap::Http (the record: both sides)
//!         ──► JSON body: read whole ──► Tap::Message (server) ──► client
//!         ──► SSE body: chunk by chunk ──► SseDecoder: Tap::Sse + Tap::Message ──► client (each chunk as it came)
//! ```
//!
//! What is relayed unchanged: the method, the path and query (a client
//! connects to the upstream's own path on the proxy), every request header
//! but `Host` (the upstream's authority, as for any reverse proxy) and the
//! hop-by-hop ones (`Connection`, `Transfer-Encoding`, …, which belong to
//! one connection), the body; the status, every response header but the
//! hop-by-hop ones, the body. SSE bodies are passed on chunk by chunk, as
//! they arrive (nothing waits for an event to complete).
//!
//! Sessions ([`Sessions`]): requests carrying the same `Mcp-Session-Id`
//! are one connection; a POST of `initialize` without one opens a new
//! connection, which the session id its answer carries names from then on;
//! other requests without one belong to the latest such connection (a
//! server that issues no session ids).
//!
//! Records keep headers as the serving transport does (credentials
//! redacted), and name the upstream's endpoint path `/mcp`, the path the
//! judge of a client expects (`MCP_PATH`). Several clients may use the proxy at once; each exchange runs
//! in its own task.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{HeaderMap, HeaderName, HeaderValue, HOST};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use mcpspec_wire::event::{Event, HttpRecord, Via, LEGACY_POST_PATH, LEGACY_SSE_PATH, MCP_PATH};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use super::order::Order;
use super::sessions::Sessions;
use super::sse_relay::{relay_sse, RelayBody};
use super::{Peer, Tap, Tapped, Tapper};
use crate::client::{looks_like_json, media_type, response_into};
use crate::event::body_text;
use crate::serve::handle::request_side;

/// How the HTTP proxy behaves.
#[derive(Debug, Clone)]
pub struct HttpProxyOptions {
    /// Where to listen.
    pub listen: SocketAddr,
    /// The real server's endpoint (`http://host:port/path`).
    pub upstream: String,
    /// Longest request or JSON response body relayed (larger: refused
    /// with 413 / cut off with 502).
    pub max_body: usize,
    /// How long the upstream has to answer a request with its headers.
    pub timeout: Duration,
    /// The upstream is a legacy HTTP+SSE server (2024-11-05) and
    /// [`HttpProxyOptions::upstream`] its SSE stream's URL.
    pub legacy: bool,
}

/// The proxy could not start.
#[derive(Debug, thiserror::Error)]
pub enum ProxyError {
    #[error("invalid upstream URL {url:?}: {reason}")]
    Upstream { url: String, reason: String },
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// A running HTTP proxy.
#[derive(Debug)]
pub struct HttpProxy {
    /// What crossed, in order, per connection.
    pub taps: mpsc::Receiver<Tapped>,
    /// The address it listens on (the port chosen when 0 was asked).
    pub local: SocketAddr,
    stop: watch::Sender<bool>,
    server: tokio::task::JoinHandle<()>,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    /// `host:port` of the upstream, for connecting and for `Host`.
    authority: String,
    /// The upstream endpoint's path: records name it [`MCP_PATH`] (a
    /// legacy stream's: [`LEGACY_SSE_PATH`]).
    path: String,
    upstream: reqwest::Url,
    options: HttpProxyOptions,
    /// Taps, in the order the judge needs them.
    order: Arc<Order>,
    sessions: Mutex<Sessions>,
    /// The tasks relaying open response streams (aborted at shutdown).
    streams: Mutex<JoinSet<()>>,
}

impl Shared {
    fn sessions(&self) -> MutexGuard<'_, Sessions> {
        // A panic under the lock leaves only numbering behind: go on.
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The path and query a legacy `endpoint` event's URI names, resolved
    /// against the upstream's stream URL; `None` for another origin.
    fn endpoint_target(&self, data: &str) -> Option<String> {
        let url = self.upstream.join(data.trim()).ok()?;
        if url.origin() != self.upstream.origin() {
            return None;
        }
        Some(match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        })
    }
}

impl HttpProxy {
    /// Listens on `options.listen` and relays to `options.upstream`.
    pub async fn bind(options: HttpProxyOptions) -> Result<HttpProxy, ProxyError> {
        let url =
            crate::client::parse_url(&options.upstream).map_err(|e| ProxyError::Upstream {
                url: options.upstream.clone(),
                reason: e.to_string(),
            })?;
        let host = url.host_str().unwrap_or("");
        let authority = match url.port_or_known_default() {
            Some(port) if host.contains(':') => format!("[{host}]:{port}"),
            Some(port) => format!("{host}:{port}"),
            None => host.to_owned(),
        };
        let listener =
            TcpListener::bind(options.listen)
                .await
                .map_err(|source| ProxyError::Listen {
                    addr: options.listen,
                    source,
                })?;
        let local = listener.local_addr().map_err(|source| ProxyError::Listen {
            addr: options.listen,
            source,
        })?;
        let (tapper, taps) = Tapper::new();
        let shared = Arc::new(Shared {
            authority: authority.trim_matches(['[', ']']).to_owned(),
            path: url.path().to_owned(),
            upstream: url.clone(),
            options,
            order: Arc::new(Order::new(tapper)),
            sessions: Mutex::new(Sessions::default()),
            streams: Mutex::new(JoinSet::new()),
        });
        let (stop, stopped) = watch::channel(false);
        let server = tokio::spawn(serve(listener, shared.clone(), stopped));
        Ok(HttpProxy {
            taps,
            local,
            stop,
            server,
            shared,
        })
    }

    /// Stops accepting, lets exchanges in flight finish (bounded), then
    /// ends every open stream. The taps channel closes once the caller
    /// drops the proxy.
    pub async fn shutdown(&mut self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(1), &mut self.server).await;
        self.server.abort();
        let mut streams = self
            .shared
            .streams
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        streams.abort_all();
    }

    /// The connections seen so far.
    pub fn connections(&self) -> u64 {
        self.shared.sessions().count()
    }
}

impl Drop for HttpProxy {
    fn drop(&mut self) {
        self.server.abort();
        if let Ok(mut streams) = self.shared.streams.lock() {
            streams.abort_all();
        }
    }
}

async fn serve(listener: TcpListener, shared: Arc<Shared>, stop: watch::Receiver<bool>) {
    let mut connections = JoinSet::new();
    let mut stopping = stop.clone();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    connections.spawn(connection(stream, shared.clone(), stop.clone()));
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            () = stopped(&mut stopping) => break,
        }
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

/// The upstream connection of one client connection (HTTP/1.1 serves a
/// connection's requests one at a time, so one upstream connection each
/// keeps their order and saves a connect per request).
type Upstream = Arc<tokio::sync::Mutex<Option<SendRequest<Full<Bytes>>>>>;

async fn connection(stream: TcpStream, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let upstream: Upstream = Arc::default();
    let service = service_fn(move |req| {
        let shared = shared.clone();
        let upstream = upstream.clone();
        async move { Ok::<_, Infallible>(exchange(shared, upstream, req).await) }
    });
    let mut builder = http1::Builder::new();
    builder.timer(TokioTimer::new());
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        () = stopped(&mut stop) => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}

/// Resolves once the proxy is stopping (or its handle is gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    let _ = stop.wait_for(|s| *s).await;
}

type ProxyBody = UnsyncBoxBody<Bytes, Infallible>;

/// Headers that belong to one connection, never relayed.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "content-length",
];

fn hop_by_hop(name: &HeaderName) -> bool {
    HOP_BY_HOP.contains(&name.as_str())
}

/// Relays one request and its answer.
async fn exchange(
    shared: Arc<Shared>,
    upstream: Upstream,
    req: Request<Incoming>,
) -> Response<ProxyBody> {
    let (parts, incoming) = req.into_parts();
    let max = shared.options.max_body;
    let body = match read_limited(incoming, max).await {
        Ok(b) => b,
        Err(status) => return plain(status, Bytes::new(), HeaderMap::new()),
    };
    let session = parts
        .headers
        .get("mcp-session-id")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let target = parts
        .uri
        .path_and_query()
        .map_or_else(|| "/".to_owned(), |pq| pq.as_str().to_owned());
    let stream = shared.options.legacy
        && parts.method == hyper::Method::GET
        && parts.uri.path() == shared.path;
    let (conn, via) = match stream {
        true => (shared.sessions().open_stream(), Via::Legacy),
        false => {
            let last = parts
                .headers
                .get("last-event-id")
                .and_then(|v| v.to_str().ok());
            let method = parts.method.as_str();
            shared
                .sessions()
                .route(method, &target, session.as_deref(), last, &body)
        }
    };
    let tapper = shared.order.as_ref();
    // A legacy POST: its stream's taps wait for its record (`super::order`).
    let holds = shared.options.legacy && !stream && shared.sessions().is_endpoint(&target);
    if holds {
        tapper.post_started(conn).await;
    }
    if !body.is_empty() && parts.method == hyper::Method::POST {
        let tap = Tap::Message {
            from: Peer::Client,
            via,
            bytes: body.to_vec(),
            crlf: false,
        };
        tapper.tap(conn, tap).await;
    }
    let as_path = match (shared.options.legacy, stream) {
        (true, true) => Some(LEGACY_SSE_PATH),
        (true, false) if shared.sessions().is_endpoint(&target) => Some(LEGACY_POST_PATH),
        (false, _) if parts.uri.path() == shared.path => Some(MCP_PATH),
        _ => None,
    };
    let mut record = request_record(&parts, &body, as_path);
    let mut headers = HeaderMap::new();
    for (name, value) in &parts.headers {
        if !hop_by_hop(name) && name != HOST {
            headers.append(name.clone(), value.clone());
        }
    }
    if let Ok(host) = HeaderValue::from_str(&shared.authority) {
        headers.insert(HOST, host);
    }
    let sent = send_upstream(
        &shared,
        &upstream,
        parts.method.clone(),
        &target,
        headers,
        body,
    );
    let resp = match sent.await {
        Ok(resp) => resp,
        Err(why) => {
            record.error = Some(why);
            tapper.tap(conn, Tap::Http { via, record }).await;
            if holds {
                tapper.post_done(conn).await;
            }
            return plain(StatusCode::BAD_GATEWAY, Bytes::new(), HeaderMap::new());
        }
    };
    let (resp_parts, upstream_body) = resp.into_parts();
    response_into(&mut record, resp_parts.status.as_u16(), &resp_parts.headers);
    if let Some(id) = record.response_header("mcp-session-id") {
        shared.sessions().issued(conn, id);
    }
    let mut out_headers = HeaderMap::new();
    for (name, value) in &resp_parts.headers {
        if !hop_by_hop(name) {
            out_headers.append(name.clone(), value.clone());
        }
    }
    let sse = media_type(&resp_parts.headers).as_deref() == Some("text/event-stream");
    if sse {
        record.body = "SSE stream".to_owned();
        tapper.tap(conn, Tap::Http { via, record }).await;
        if holds {
            tapper.post_done(conn).await;
        }
        let (tx, relay) = RelayBody::channel();
        let on_event = {
            let shared = shared.clone();
            move |ev: &mcpspec_wire::SseEvent| {
                if let Some(id) = ev.id.as_deref().filter(|id| !id.is_empty()) {
                    shared.sessions().event_id(conn, via, id);
                }
                if via == Via::Legacy && ev.event == "endpoint" {
                    if let Some(target) = shared.endpoint_target(&ev.data) {
                        shared.sessions().endpoint(conn, target);
                    }
                }
            }
        };
        let task = relay_sse(
            shared.order.clone(),
            conn,
            via,
            upstream_body,
            shared.options.max_body,
            tx,
            on_event,
        );
        shared
            .streams
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .spawn(task);
        let mut resp = Response::new(relay.boxed_unsync());
        *resp.status_mut() = resp_parts.status;
        *resp.headers_mut() = out_headers;
        return resp;
    }
    let json = media_type(&resp_parts.headers).as_deref() == Some("application/json");
    let (bytes, whole) = match read_limited(upstream_body, max).await {
        Ok(b) => (b, true),
        Err(_) => (Bytes::new(), false),
    };
    record.body = body_text(&bytes);
    if !whole {
        record.error = Some(format!("the response body was cut or over {max} bytes"));
    }
    tapper.tap(conn, Tap::Http { via, record }).await;
    if (json || looks_like_json(&bytes)) && !bytes.iter().all(u8::is_ascii_whitespace) {
        let tap = Tap::Message {
            from: Peer::Server,
            via,
            bytes: bytes.to_vec(),
            crlf: false,
        };
        tapper.tap(conn, tap).await;
    }
    if holds {
        tapper.post_done(conn).await;
    }
    if via == Via::Delete && (200..300).contains(&resp_parts.status.as_u16()) {
        let event = Event::Closed("the client ended the session (DELETE)".to_owned());
        let tap = Tap::Gone {
            side: Peer::Client,
            via,
            event,
        };
        tapper.tap(conn, tap).await;
    }
    if !whole {
        return plain(StatusCode::BAD_GATEWAY, Bytes::new(), HeaderMap::new());
    }
    plain(resp_parts.status, bytes, out_headers)
}

fn plain(status: StatusCode, body: Bytes, headers: HeaderMap) -> Response<ProxyBody> {
    let mut resp = Response::new(Full::new(body).boxed_unsync());
    *resp.status_mut() = status;
    *resp.headers_mut() = headers;
    resp
}

/// The request side of a record, as the serving transport keeps it
/// ([`request_side`]), with the body. The upstream's endpoint is recorded
/// under `as_path` (the harness's own path for it, where the judge of a
/// client expects its messages), keeping the query; a request elsewhere
/// keeps its path.
fn request_record(
    parts: &hyper::http::request::Parts,
    body: &[u8],
    as_path: Option<&str>,
) -> HttpRecord {
    HttpRecord {
        request_body: body_text(body),
        ..request_side(parts, as_path)
    }
}

/// Reads a whole body, at most `max` bytes (else 413), within 30 s.
async fn read_limited(mut body: Incoming, max: usize) -> Result<Bytes, StatusCode> {
    let mut out = Vec::new();
    let read = async {
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else {
                return Err(StatusCode::BAD_REQUEST);
            };
            if let Ok(data) = frame.into_data() {
                if out.len() + data.len() > max {
                    return Err(StatusCode::PAYLOAD_TOO_LARGE);
                }
                out.extend_from_slice(&data);
            }
        }
        Ok(())
    };
    match tokio::time::timeout(Duration::from_secs(30), read).await {
        Ok(Ok(())) => Ok(Bytes::from(out)),
        Ok(Err(status)) => Err(status),
        Err(_) => Err(StatusCode::REQUEST_TIMEOUT),
    }
}

/// One request to the upstream, over the client connection's upstream
/// connection (a new one when there is none or it closed); its response
/// with the body still to read.
async fn send_upstream(
    shared: &Shared,
    upstream: &Upstream,
    method: hyper::Method,
    target: &str,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response<Incoming>, String> {
    let timeout = shared.options.timeout;
    let mut held = upstream.lock().await;
    let reusable = match held.as_mut() {
        Some(sender) if !sender.is_closed() => sender.ready().await.is_ok(),
        _ => false,
    };
    if !reusable {
        *held = Some(connect(shared).await?);
    }
    let Some(sender) = held.as_mut() else {
        return Err("no upstream connection".to_owned());
    };
    let mut builder = Request::builder().method(method).uri(target);
    if let Some(h) = builder.headers_mut() {
        *h = headers;
    }
    let request = builder.body(Full::new(body)).map_err(|e| e.to_string())?;
    tokio::time::timeout(timeout, sender.send_request(request))
        .await
        .map_err(|_| format!("the upstream sent no answer within {timeout:?}"))?
        .map_err(|e| e.to_string())
}

/// A new HTTP/1.1 connection to the upstream.
async fn connect(shared: &Shared) -> Result<SendRequest<Full<Bytes>>, String> {
    let timeout = shared.options.timeout;
    let authority = &shared.authority;
    let stream = tokio::time::timeout(timeout, TcpStream::connect(authority.as_str()))
        .await
        .map_err(|_| format!("connecting to {authority} timed out"))?
        .map_err(|e| format!("connecting to {authority}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| e.to_string())?;
    // Ends when the upstream closes it or its sender is dropped (with the
    // client's connection).
    tokio::spawn(conn);
    Ok(sender)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_name_the_upstream_endpoint_mcp_and_redact_credentials() {
        let req = Request::builder()
            .method("POST")
            .uri("/api/v1?x=1")
            .header("authorization", "Bearer s3cret")
            .header("accept", "application/json")
            .body(())
            .expect("a request");
        let (parts, ()) = req.into_parts();
        let r = request_record(&parts, b"{}", Some(MCP_PATH));
        assert_eq!(r.target, "/mcp?x=1");
        assert_eq!(r.request_header("authorization"), Some("Bearer [redacted]"));
        assert_eq!(r.request_body, "{}");
        let r = request_record(&parts, b"", None);
        assert_eq!(r.target, "/api/v1?x=1");
    }
}
