//! Plumbing shared by the two HTTP client transports: options, errors, the
//! event emitter, and reading response bodies into events.
//!
//! ```text
//!   reqwest::Response ──► read_json ──► Http record, then Frame (JSON body)
//!                    └──► read_sse  ──► Http record, then per event:
//!                                       SseEvent, Frame (message data) | SseError
//! ```
//!
//! Every read is bounded: response headers by `request_timeout`, a JSON body
//! by `request_timeout` and `max_message`, an SSE event by `max_message`.
//! SSE streams are not bounded in time: their tasks are aborted with the
//! session instead.

use std::collections::HashSet;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpspec_wire::{
    classify, Frame, FrameError, FrameErrorKind, Id, Inbound, Message, SseDecoder, SseErrorKind,
};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::event::{
    body_text, keep_request_header, keep_response_header, recorded_value, Event, HttpRecord,
    Stamped, Via,
};
use crate::inflight::Inflight;

/// Settings shared by both HTTP transports.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Time to establish a TCP connection.
    pub connect_timeout: Duration,
    /// Time to a response's headers, and to the end of a non-stream body.
    pub request_timeout: Duration,
    /// Time the DELETE that ends a session may take.
    pub close_timeout: Duration,
    /// Bound on one JSON body or one SSE event, in bytes.
    pub max_message: usize,
    /// Headers sent with every request (e.g. `Authorization`); recorded
    /// redacted.
    pub headers: Vec<(String, String)>,
    /// How often a cut response stream is resumed with `Last-Event-ID`.
    pub resume_attempts: u32,
    /// Deliberate header violations of the Streamable HTTP client, each
    /// off by default: the reference client's HTTP faults switch them on
    /// so that a harness can prove it catches them. The legacy HTTP+SSE
    /// client ignores them.
    pub misbehave: crate::streamable::HttpMisbehaviour,
    /// The run's connection limit for this target (`--max-connections`):
    /// when set, a Streamable HTTP POST refused (connection refused, 429,
    /// 503) lowers it and is sent again after a pause; answers raise it.
    /// `None`: every answer is taken as it comes (the proxy, the fuzzer).
    pub limit: Option<std::sync::Arc<crate::limit::ConnLimit>>,
    /// One HTTP client for every session made with (clones of) these
    /// options, built by the first: see [`SharedClient`]. `None`: each
    /// session has a client of its own.
    pub shared_client: Option<SharedClient>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            close_timeout: Duration::from_secs(2),
            max_message: mcpspec_wire::DEFAULT_MAX_EVENT,
            headers: Vec::new(),
            resume_attempts: 2,
            misbehave: crate::streamable::HttpMisbehaviour::default(),
            limit: None,
            shared_client: None,
        }
    }
}

/// An HTTP transport could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("invalid URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },
    #[error("invalid header `{name}`")]
    InvalidHeader { name: String },
    #[error("invalid method `{0}`")]
    InvalidMethod(String),
    #[error("could not connect to {url}: {detail}")]
    Connect { url: String, detail: String },
    #[error("no response from {url} within {after:?}")]
    Timeout { url: String, after: Duration },
    #[error("HTTP exchange with {url} failed: {detail}")]
    Exchange { url: String, detail: String },
    #[error("the legacy SSE stream at {url} sent no `endpoint` event within {after:?}{}", first_event.as_ref().map(|e| format!(" (first event: `{e}`)")).unwrap_or_default())]
    NoEndpoint {
        url: String,
        after: Duration,
        first_event: Option<String>,
    },
    #[error("the legacy SSE stream at {url} answered {status}, not an event stream")]
    NotAStream { url: String, status: u16 },
    #[error("the connection is closed")]
    Closed,
    /// Serving a client over HTTP: no stream the client keeps open can
    /// carry a message of the server's (the text says which).
    #[error("nothing can carry it: {0}")]
    NoStream(String),
    #[error("could not write to the target's stdin: {0}")]
    Stdin(#[from] io::Error),
}

/// Puts stamped events on the connection's channel; numbers frames.
#[derive(Debug, Clone)]
pub(crate) struct Emitter {
    tx: mpsc::Sender<Stamped>,
    started: Instant,
    lines: Arc<AtomicU64>,
    /// Readers holding received bytes not yet emitted (see `inflight`).
    pub(crate) inflight: Inflight,
}

/// Events buffered per connection before background readers wait.
pub(crate) const CHANNEL: usize = 1024;

impl Emitter {
    pub(crate) fn new() -> (Self, mpsc::Receiver<Stamped>) {
        let (tx, rx) = mpsc::channel(CHANNEL);
        let emitter = Emitter {
            tx,
            started: Instant::now(),
            lines: Arc::new(AtomicU64::new(0)),
            inflight: Inflight::default(),
        };
        (emitter, rx)
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Sends an event; false once nobody listens (the task should end).
    pub(crate) async fn emit(&self, via: Via, event: Event) -> bool {
        let stamped = Stamped {
            at: self.started.elapsed(),
            via,
            event,
        };
        self.tx.send(stamped).await.is_ok()
    }

    /// Sends an event without waiting (dropped when the channel is full).
    pub(crate) fn emit_now(&self, via: Via, event: Event) {
        let _ = self.tx.try_send(Stamped {
            at: self.started.elapsed(),
            via,
            event,
        });
    }

    /// A message's bytes as the next numbered frame (or a frame error).
    pub(crate) async fn frame(&self, via: Via, bytes: Vec<u8>) -> bool {
        let line = self.lines.fetch_add(1, Ordering::Relaxed) + 1;
        let event = match std::str::from_utf8(&bytes) {
            Ok(_) => Event::Frame(Frame {
                bytes,
                line,
                crlf: false,
            }),
            Err(e) => Event::FrameError(FrameError {
                kind: FrameErrorKind::InvalidUtf8 {
                    valid_up_to: e.valid_up_to(),
                },
                line,
                bytes,
            }),
        };
        self.emit(via, event).await
    }

    /// A body over the limit, as a frame error.
    pub(crate) async fn oversize(&self, via: Via, prefix: Vec<u8>, len: usize, limit: usize) {
        let line = self.lines.fetch_add(1, Ordering::Relaxed) + 1;
        let event = Event::FrameError(FrameError {
            kind: FrameErrorKind::Oversize { len, limit },
            line,
            bytes: prefix,
        });
        self.emit(via, event).await;
    }
}

/// The HTTP client of a run's sessions, built by the first session that
/// connects, inside the run's runtime (its connections belong to that
/// runtime: share it within one run only).
///
/// Sessions of a run reach one target, so one pool of connections serves
/// them all: a connection a session's request left idle carries another
/// session's next request (the session is named by its header, not by its
/// connection), and a run keeps at most [`SHARED_IDLE`] idle connections
/// instead of one per live session. Each costs the harness tens of
/// kilobytes and the target a socket for as long as it is kept (#18).
#[derive(Debug, Clone, Default)]
pub struct SharedClient(Arc<Mutex<Option<reqwest::Client>>>);

/// The idle connections a [`SharedClient`] keeps for the run's next
/// requests.
pub const SHARED_IDLE: usize = 16;

impl SharedClient {
    fn get(&self, options: &HttpOptions) -> Result<reqwest::Client, TransportError> {
        let mut slot = match self.0.lock() {
            Ok(slot) => slot,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(client) = slot.as_ref() {
            return Ok(client.clone());
        }
        let client = new_client(options, SHARED_IDLE)?;
        *slot = Some(client.clone());
        Ok(client)
    }
}

/// The reqwest client of a session: the run's shared one when the options
/// carry it, else one of its own that keeps one idle connection for the
/// session's next request (a session's requests mostly follow one another).
pub(crate) fn build_client(options: &HttpOptions) -> Result<reqwest::Client, TransportError> {
    match &options.shared_client {
        Some(shared) => shared.get(options),
        None => new_client(options, 1),
    }
}

/// No proxies (targets are local or explicit), no redirects (a redirect is
/// something to record, not to follow).
fn new_client(options: &HttpOptions, idle: usize) -> Result<reqwest::Client, TransportError> {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(options.connect_timeout)
        .pool_max_idle_per_host(idle)
        .build()
        .map_err(|e| TransportError::Exchange {
            url: String::new(),
            detail: e.to_string(),
        })
}

pub(crate) fn parse_url(url: &str) -> Result<reqwest::Url, TransportError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| TransportError::InvalidUrl {
        url: url.to_owned(),
        reason: e.to_string(),
    })?;
    if parsed.scheme() != "http" {
        return Err(TransportError::InvalidUrl {
            url: url.to_owned(),
            reason: "only http:// is supported (no TLS stack is built in)".to_owned(),
        });
    }
    Ok(parsed)
}

/// Path and query of a URL, for records.
pub(crate) fn target_of(url: &reqwest::Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}

/// Adds `name: value` to a header map (replacing), checking both.
pub(crate) fn set_header(
    headers: &mut HeaderMap,
    name: &str,
    value: &str,
) -> Result<(), TransportError> {
    let invalid = || TransportError::InvalidHeader {
        name: name.to_owned(),
    };
    let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
    let value = HeaderValue::from_str(value).map_err(|_| invalid())?;
    headers.insert(name, value);
    Ok(())
}

/// A record's start: the request side.
pub(crate) fn request_record(
    method: &str,
    url: &reqwest::Url,
    headers: &HeaderMap,
    body: &[u8],
    all_headers: bool,
) -> HttpRecord {
    HttpRecord {
        method: method.to_owned(),
        target: target_of(url),
        request_headers: headers
            .iter()
            .filter(|(n, _)| keep_request_header(n.as_str(), all_headers))
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    recorded_value(n.as_str(), v.as_bytes()),
                )
            })
            .collect(),
        request_body: body_text(body),
        ..HttpRecord::default()
    }
}

/// Fills in the response side of a record (status and headers).
pub(crate) fn response_into(record: &mut HttpRecord, status: u16, headers: &HeaderMap) {
    record.status = Some(status);
    record.response_headers = headers
        .iter()
        .filter(|(n, _)| keep_response_header(n.as_str()))
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                recorded_value(n.as_str(), v.as_bytes()),
            )
        })
        .collect();
}

/// The media type of a Content-Type header, lowercased, without parameters.
pub(crate) fn media_type(headers: &HeaderMap) -> Option<String> {
    let ct = headers.get(reqwest::header::CONTENT_TYPE)?.to_str().ok()?;
    let essence = ct.split(';').next().unwrap_or("").trim();
    Some(essence.to_ascii_lowercase())
}

/// Describes a reqwest error with its causes (reqwest's own text is terse).
pub(crate) fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

/// Reads a non-stream body, bounded in size and time. Returns the kept
/// bytes, the full length seen, and whether reading was cut short by time.
pub(crate) async fn read_body(
    resp: &mut reqwest::Response,
    max: usize,
    within: Duration,
) -> (Vec<u8>, usize, bool) {
    let deadline = Instant::now() + within;
    let mut body = Vec::new();
    let mut len = 0;
    loop {
        match tokio::time::timeout_at(deadline, resp.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                len += chunk.len();
                let room = max.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..room.min(chunk.len())]);
            }
            Ok(Ok(None)) | Ok(Err(_)) => return (body, len, false),
            Err(_) => return (body, len, true),
        }
    }
}

/// Emits a finished non-stream response: the record, then (for a JSON body
/// that is not blank) the body as one frame.
pub(crate) async fn finish_plain(
    emitter: &Emitter,
    via: Via,
    mut record: HttpRecord,
    mut resp: reqwest::Response,
    max: usize,
    within: Duration,
) -> Option<Vec<u8>> {
    let json = media_type(resp.headers()).as_deref() == Some("application/json");
    let (body, len, timed_out) = read_body(&mut resp, max + 1, within).await;
    // The transport does not judge: a JSON-RPC body under another content
    // type still reaches the runner, which judges the content type.
    let json = json || looks_like_json(&body);
    // The body is in: its record and its frame are emitted before the
    // connection may end (see `inflight`).
    let _delivering = emitter.inflight.enter();
    record.body = body_text(&body);
    if timed_out {
        record.error = Some(format!("body not complete within {within:?}"));
    }
    emitter.emit(via, Event::Http(Box::new(record))).await;
    if !json || body.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    if len > max {
        let prefix = body[..FrameError::KEPT.min(body.len())].to_vec();
        emitter.oversize(via, prefix, len, max).await;
        return None;
    }
    emitter.frame(via, body.clone()).await;
    Some(body)
}

/// A body that starts like a JSON object or array (after whitespace).
pub(crate) fn looks_like_json(body: &[u8]) -> bool {
    matches!(
        body.iter().find(|b| !b.is_ascii_whitespace()),
        Some(b'{' | b'[')
    )
}

/// Requests whose answers a POST's stream still owes (for resumption).
#[derive(Debug, Default)]
pub(crate) struct Owed(HashSet<Id>);

impl Owed {
    /// The request ids in a POST body (a single request or a batch).
    pub(crate) fn of_body(body: &[u8]) -> Self {
        let mut ids = HashSet::new();
        let mut add = |m: &Message| {
            if let Message::Request(r) = m {
                ids.insert(r.id.clone());
            }
        };
        match classify(body) {
            Ok(Inbound::Single(m)) => add(&m),
            Ok(Inbound::Batch(items)) => items.iter().flatten().for_each(add),
            Err(_) => {}
        }
        Owed(ids)
    }

    /// Crosses off the requests a received message answers.
    pub(crate) fn answered(&mut self, frame: &[u8]) {
        let mut cross = |m: &Message| {
            if let Message::Response(r) = m {
                if let Some(id) = &r.id {
                    self.0.remove(id);
                }
            }
        };
        match classify(frame) {
            Ok(Inbound::Single(m)) => cross(&m),
            Ok(Inbound::Batch(items)) => items.iter().flatten().for_each(cross),
            Err(_) => {}
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// How an SSE body ended.
#[derive(Debug)]
pub(crate) struct StreamEnd {
    /// The last event id seen on the stream (empty: none).
    pub last_event_id: String,
    pub retry: Option<u64>,
    /// The body ended with an error (cut) rather than cleanly.
    pub error: Option<String>,
    /// Nobody listens any more: stop.
    pub abandoned: bool,
}

/// Reads an SSE body to its end: each event is reported, `message` events
/// with data become frames; `on_event` sees every event first (the legacy
/// transport uses it for `endpoint`).
pub(crate) async fn read_sse(
    emitter: &Emitter,
    via: Via,
    resp: &mut reqwest::Response,
    max: usize,
    owed: &mut Owed,
    mut on_event: impl FnMut(&mcpspec_wire::SseEvent) -> bool,
) -> StreamEnd {
    let mut decoder = SseDecoder::new(max);
    let mut error = None;
    loop {
        let chunk = resp.chunk().await;
        // Every event of this chunk is emitted before the connection may
        // end (see `inflight`); the guard drops before the next read.
        let _delivering = emitter.inflight.enter();
        match &chunk {
            Ok(Some(bytes)) => decoder.push(bytes),
            Ok(None) => decoder.finish(),
            Err(e) => {
                error = Some(describe(e));
                decoder.finish();
            }
        }
        while let Some(item) = decoder.next() {
            let alive = match item {
                Ok(ev) => {
                    let frame = on_event(&ev);
                    let alive = emitter
                        .emit(
                            via,
                            Event::SseEvent {
                                event: ev.event.clone(),
                                id: ev.id.clone(),
                                retry: ev.retry,
                                data_len: ev.data.len(),
                            },
                        )
                        .await;
                    // A priming event (id, empty data) carries no message.
                    if frame && ev.event == "message" && !ev.data.trim().is_empty() {
                        owed.answered(ev.data.as_bytes());
                        alive && emitter.frame(via, ev.data.into_bytes()).await
                    } else {
                        alive
                    }
                }
                Err(e) => {
                    // A cut stream is the caller's to report (resumption).
                    let cut = matches!(e.kind, SseErrorKind::Truncated) && error.is_some();
                    cut || emitter.emit(via, Event::SseError(e)).await
                }
            };
            if !alive {
                return StreamEnd {
                    last_event_id: decoder.last_event_id().to_owned(),
                    retry: decoder.retry(),
                    error,
                    abandoned: true,
                };
            }
        }
        if !matches!(chunk, Ok(Some(_))) {
            return StreamEnd {
                last_event_id: decoder.last_event_id().to_owned(),
                retry: decoder.retry(),
                error,
                abandoned: false,
            };
        }
    }
}
