//! Raw HTTP exchanges for transport-specific scenario steps ("a POST without
//! `Accept` gets 406", "a foreign `Origin` is rejected", "DELETE ends the
//! session").
//!
//! A raw exchange sends exactly the headers the step asks for — which
//! reqwest cannot do (it adds `Accept: */*` to every request) — so it uses
//! hyper's connection-level HTTP/1.1 client over a fresh TCP connection.
//! hyper adds only `Content-Length` (for a non-empty body); `Host` is set
//! here and can be removed like any other header.
//!
//! The answer is returned to the step, never put on the frame stream, and a
//! session id in it is not captured. Reading is bounded: the body by
//! [`RAW_BODY_MAX`] and the request timeout, an event stream by the step's
//! `read_for`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use mcpspec_wire::{SseDecoder, SseError, SseEvent};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::client::{media_type, request_record, response_into, HttpOptions, TransportError};
use crate::event::{body_text, HttpRecord};
use crate::streamable::{SESSION_HEADER, VERSION_HEADER};

/// Bytes of a raw response body kept.
pub const RAW_BODY_MAX: usize = 1024 * 1024;

/// How to fill a header the session normally manages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum HeaderMode {
    /// What the session would send (nothing when it has no value).
    #[default]
    Auto,
    /// Leave the header out.
    Omit,
    /// Send this value.
    Value(String),
}

/// One exchange as a scenario step describes it.
#[derive(Debug, Clone)]
pub struct RawRequest {
    /// Any method, even one HTTP does not define.
    pub method: String,
    /// A URL relative to the session's (Streamable HTTP: the endpoint;
    /// legacy: the POST endpoint), or absolute; `None`: that URL itself.
    pub url: Option<String>,
    /// Headers to set, replacing the defaults of the same name. The
    /// defaults: for POST `Accept: application/json, text/event-stream` and
    /// `Content-Type: application/json`, for GET `Accept: text/event-stream`,
    /// plus the session's configured headers and `Host`.
    pub headers: Vec<(String, String)>,
    /// Header names to leave out (after `headers` are applied).
    pub remove: Vec<String>,
    pub session_id: HeaderMode,
    pub protocol_version: HeaderMode,
    pub body: Vec<u8>,
    /// How long to read an event-stream response before giving up on its end.
    pub read_for: Duration,
    /// Ends the reading of an event stream before `read_for` is up, once
    /// what was read so far settles the step ([`ReadUntil`]).
    pub until: Option<ReadUntil>,
}

/// A test of an event stream read so far, called with the response as it
/// stands (the stream still open) and the index of the first event that is
/// new since the last call: `true` ends the reading there. The caller
/// answers `true` only when more of the stream could not change its verdict.
#[derive(Clone)]
pub struct ReadUntil(Arc<UntilFn>);

type UntilFn = dyn Fn(&RawResponse, usize) -> bool + Send + Sync;

impl ReadUntil {
    pub fn new(settled: impl Fn(&RawResponse, usize) -> bool + Send + Sync + 'static) -> Self {
        ReadUntil(Arc::new(settled))
    }
}

impl fmt::Debug for ReadUntil {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReadUntil(..)")
    }
}

impl RawRequest {
    /// A request with the defaults: no overrides, automatic session
    /// headers, empty body, 1 s of reading for streams.
    pub fn new(method: impl Into<String>) -> Self {
        RawRequest {
            method: method.into(),
            url: None,
            headers: Vec::new(),
            remove: Vec::new(),
            session_id: HeaderMode::Auto,
            protocol_version: HeaderMode::Auto,
            body: Vec::new(),
            read_for: Duration::from_secs(1),
            until: None,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    pub fn without(mut self, name: &str) -> Self {
        self.remove.push(name.to_owned());
        self
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }
}

/// What came back.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub status: u16,
    /// Every response header, names lowercased, in order.
    pub headers: Vec<(String, String)>,
    /// The media type (lowercase, no parameters), when there was one.
    pub content_type: Option<String>,
    /// The body, cut at [`RAW_BODY_MAX`].
    pub body: Vec<u8>,
    /// The body was longer than what is kept.
    pub body_cut: bool,
    /// For an event stream: the events (and stream errors) read.
    pub events: Vec<Result<SseEvent, SseError>>,
    /// Reading stopped (time, size, or [`RawRequest::until`]) while the
    /// body was still open.
    pub stream_open: bool,
    /// Reading stopped because [`RawRequest::until`] said so.
    pub ended_early: bool,
}

impl RawResponse {
    /// A header's value (first of that name, case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Resolves a step's URL against the session's.
pub(crate) fn resolve(
    base: &reqwest::Url,
    url: Option<&str>,
) -> Result<reqwest::Url, TransportError> {
    match url {
        None => Ok(base.clone()),
        Some(u) => base.join(u).map_err(|e| TransportError::InvalidUrl {
            url: u.to_owned(),
            reason: e.to_string(),
        }),
    }
}

fn invalid(name: &str) -> TransportError {
    TransportError::InvalidHeader {
        name: name.to_owned(),
    }
}

fn put(headers: &mut HeaderMap, name: &str, value: &str) -> Result<(), TransportError> {
    let n = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid(name))?;
    let v = HeaderValue::from_str(value).map_err(|_| invalid(name))?;
    headers.insert(n, v);
    Ok(())
}

/// The headers a raw request sends, in the order defaults → step.
fn headers_for(
    url: &reqwest::Url,
    req: &RawRequest,
    options: &HttpOptions,
    session_id: Option<String>,
    protocol_version: Option<String>,
) -> Result<HeaderMap, TransportError> {
    let mut h = HeaderMap::new();
    let host = match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => String::new(),
    };
    put(&mut h, "host", &host)?;
    match req.method.as_str() {
        "POST" => {
            put(&mut h, "accept", "application/json, text/event-stream")?;
            put(&mut h, "content-type", "application/json")?;
        }
        "GET" => put(&mut h, "accept", "text/event-stream")?,
        _ => {}
    }
    for (name, value) in &options.headers {
        put(&mut h, name, value)?;
    }
    for (name, mode, auto) in [
        (SESSION_HEADER, &req.session_id, session_id),
        (VERSION_HEADER, &req.protocol_version, protocol_version),
    ] {
        match mode {
            HeaderMode::Auto => {
                if let Some(v) = auto {
                    put(&mut h, name, &v)?;
                }
            }
            HeaderMode::Omit => {}
            HeaderMode::Value(v) => put(&mut h, name, v)?,
        }
    }
    for (name, value) in &req.headers {
        put(&mut h, name, value)?;
    }
    for name in &req.remove {
        let n = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid(name))?;
        h.remove(n);
    }
    Ok(h)
}

/// Performs one raw exchange; always returns the record of what happened.
pub(crate) async fn exchange(
    url: &reqwest::Url,
    req: &RawRequest,
    options: &HttpOptions,
    session_id: Option<String>,
    protocol_version: Option<String>,
) -> (Result<RawResponse, TransportError>, HttpRecord) {
    let headers = match headers_for(url, req, options, session_id, protocol_version) {
        Ok(h) => h,
        Err(e) => {
            let mut record = request_record(&req.method, url, &HeaderMap::new(), &req.body, true);
            record.error = Some(e.to_string());
            return (Err(e), record);
        }
    };
    let mut record = request_record(&req.method, url, &headers, &req.body, true);
    let result = run(url, req, headers, options).await;
    match &result {
        Ok(resp) => {
            record.status = Some(resp.status);
            record.response_headers = recorded_response(resp);
            record.body = if resp.content_type.as_deref() == Some("text/event-stream") {
                format!("SSE stream ({} events)", resp.events.len())
            } else {
                body_text(&resp.body)
            };
        }
        Err(e) => record.error = Some(e.to_string()),
    }
    (result, record)
}

fn recorded_response(resp: &RawResponse) -> Vec<(String, String)> {
    let mut map = HeaderMap::new();
    for (n, v) in &resp.headers {
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(n.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            map.append(n, v);
        }
    }
    let mut record = HttpRecord::default();
    response_into(&mut record, resp.status, &map);
    record.response_headers
}

async fn run(
    url: &reqwest::Url,
    req: &RawRequest,
    headers: HeaderMap,
    options: &HttpOptions,
) -> Result<RawResponse, TransportError> {
    let text = url.to_string();
    let host = url.host_str().unwrap_or("").trim_matches(['[', ']']);
    let port = url.port_or_known_default().unwrap_or(80);
    let timeout = |after| TransportError::Timeout {
        url: text.clone(),
        after,
    };
    let exchange_err = |detail: String| TransportError::Exchange {
        url: text.clone(),
        detail,
    };
    let stream = tokio::time::timeout(options.connect_timeout, TcpStream::connect((host, port)))
        .await
        .map_err(|_| timeout(options.connect_timeout))?
        .map_err(|e| TransportError::Connect {
            url: text.clone(),
            detail: e.to_string(),
        })?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| exchange_err(e.to_string()))?;
    let conn = tokio::spawn(conn);
    let _abort = AbortOnDrop(conn.abort_handle());

    let method = hyper::Method::from_bytes(req.method.as_bytes())
        .map_err(|_| TransportError::InvalidMethod(req.method.clone()))?;
    let mut builder = hyper::Request::builder()
        .method(method)
        .uri(crate::client::target_of(url));
    if let Some(h) = builder.headers_mut() {
        *h = headers;
    }
    let request = builder
        .body(Full::new(Bytes::from(req.body.clone())))
        .map_err(|e| exchange_err(e.to_string()))?;
    let resp = tokio::time::timeout(options.request_timeout, sender.send_request(request))
        .await
        .map_err(|_| timeout(options.request_timeout))?
        .map_err(|e| exchange_err(e.to_string()))?;

    let content_type = media_type(resp.headers());
    let sse = content_type.as_deref() == Some("text/event-stream");
    // Filled as the body is read, so that `until` sees the response as it stands.
    let mut out = RawResponse {
        status: resp.status().as_u16(),
        headers: resp
            .headers()
            .iter()
            .map(|(n, v)| {
                let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
                (n.as_str().to_owned(), value)
            })
            .collect(),
        content_type,
        body: Vec::new(),
        body_cut: false,
        events: Vec::new(),
        stream_open: false,
        ended_early: false,
    };
    let within = if sse {
        req.read_for
    } else {
        options.request_timeout
    };
    let deadline = Instant::now() + within;
    let mut body = resp.into_body();
    let mut decoder = SseDecoder::new(options.max_message);
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Err(_) => {
                out.stream_open = true;
                break;
            }
            Ok(None) | Ok(Some(Err(_))) => {
                decoder.finish();
                break;
            }
            Ok(Some(Ok(frame))) => {
                let Ok(data) = frame.into_data() else {
                    continue; // trailers
                };
                let read = out.events.len();
                if sse {
                    decoder.push(&data);
                    out.events.extend(std::iter::from_fn(|| decoder.next()));
                }
                let room = RAW_BODY_MAX - out.body.len();
                if data.len() > room {
                    out.body_cut = true;
                }
                out.body.extend_from_slice(&data[..room.min(data.len())]);
                if out.body_cut && !sse {
                    out.stream_open = true;
                    break;
                }
                let settled = |u: &ReadUntil| (u.0)(&out, read);
                if out.events.len() > read && req.until.as_ref().is_some_and(settled) {
                    out.stream_open = true;
                    out.ended_early = true;
                    break;
                }
            }
        }
    }
    out.events.extend(std::iter::from_fn(|| decoder.next()));
    Ok(out)
}

/// Aborts the connection task when the exchange ends, however it ends.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
