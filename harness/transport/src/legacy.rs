//! Legacy HTTP+SSE client (MCP 2024-11-05): one long-lived GET event
//! stream, whose first event (`endpoint`) names the URI to POST messages to;
//! answers arrive as `message` events on the stream, never in POST bodies.
//!
//! ```text
//!   connect(sse_url) ──► task: GET ──► Http record
//!                                  ├─► first `endpoint` event ──► resolved against sse_url
//!                                  │                              └──► connect returns
//!                                  ├─► `message` events ──► SseEvent, Frame   (via Legacy)
//!                                  └─► end of stream ─────► Closed
//!   send(bytes) ──► task: POST endpoint ──► Http record (via Post(n); 2xx expected)
//! ```
//!
//! `connect` waits at most `wait` for the endpoint. The stream task and the
//! POST tasks are aborted when the session is killed or dropped; closing the
//! stream is how a legacy client ends its session.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::client::{
    build_client, describe, finish_plain, media_type, parse_url, read_sse, request_record,
    response_into, set_header, Emitter, HttpOptions, Owed, TransportError,
};
use crate::event::{Event, Stamped, Via};
use crate::raw::{self, RawRequest, RawResponse};
use crate::streamable::{strip_newline, VERSION_HEADER};

/// A legacy HTTP+SSE session.
#[derive(Debug)]
pub struct LegacySseSession {
    client: reqwest::Client,
    sse_url: reqwest::Url,
    endpoint: reqwest::Url,
    first_event: String,
    options: HttpOptions,
    emitter: Emitter,
    protocol_version: Option<String>,
    events: mpsc::Receiver<Stamped>,
    stream: AbortHandle,
    tasks: Vec<AbortHandle>,
    posts: u64,
    raws: u64,
    closed: bool,
    /// Raw exchanges wait for the POSTs sent before them.
    order: crate::order::PostOrder,
    /// The POSTs without their response head yet, for
    /// [`LegacySseSession::accepted`] and [`LegacySseSession::received`].
    heads: crate::order::Heads,
}

/// What the stream task tells `connect`.
enum Start {
    Endpoint { first_event: String, data: String },
    Failed(TransportError),
}

impl LegacySseSession {
    /// GETs the event stream and waits up to `wait` for its `endpoint` event.
    pub async fn connect(
        sse_url: &str,
        options: HttpOptions,
        wait: Duration,
    ) -> Result<Self, TransportError> {
        let sse_url = parse_url(sse_url)?;
        let client = build_client(&options)?;
        let (emitter, events) = Emitter::new();
        let (tx, rx) = oneshot::channel();
        let first_event = Arc::new(Mutex::new(None::<String>));
        let task = tokio::spawn(stream(
            client.clone(),
            sse_url.clone(),
            options.clone(),
            emitter.clone(),
            tx,
            first_event.clone(),
        ));
        let stream_handle = task.abort_handle();
        let guard = AbortGuard(Some(stream_handle.clone()));
        let start = tokio::time::timeout(wait, rx).await;
        let (first, data) = match start {
            Ok(Ok(Start::Endpoint { first_event, data })) => (first_event, data),
            Ok(Ok(Start::Failed(e))) => return Err(e),
            Ok(Err(_)) | Err(_) => {
                return Err(TransportError::NoEndpoint {
                    url: sse_url.to_string(),
                    after: wait,
                    first_event: first_event.lock().ok().and_then(|f| f.clone()),
                })
            }
        };
        let endpoint = sse_url
            .join(data.trim())
            .map_err(|e| TransportError::InvalidUrl {
                url: data.clone(),
                reason: format!("the `endpoint` event's URI does not resolve: {e}"),
            })?;
        let _ = guard.disarm();
        Ok(LegacySseSession {
            client,
            sse_url,
            endpoint,
            first_event: first,
            options,
            emitter,
            protocol_version: None,
            events,
            stream: stream_handle,
            tasks: Vec::new(),
            posts: 0,
            raws: 0,
            closed: false,
            order: crate::order::PostOrder::new(),
            heads: crate::order::Heads::default(),
        })
    }

    /// The URI messages are POSTed to (the `endpoint` event's, resolved).
    pub fn endpoint(&self) -> &str {
        self.endpoint.as_str()
    }

    /// The SSE stream's URL.
    pub fn sse_url(&self) -> &str {
        self.sse_url.as_str()
    }

    /// The name of the stream's first event (`endpoint` when conforming).
    pub fn first_event(&self) -> &str {
        &self.first_event
    }

    /// Sends `MCP-Protocol-Version` on later POSTs (legacy servers do not
    /// expect it; kept for symmetry with [`crate::HttpSession`]).
    pub fn set_protocol_version(&mut self, version: Option<String>) {
        self.protocol_version = version;
    }

    /// Time since the session was created.
    pub fn elapsed(&self) -> Duration {
        self.emitter.elapsed()
    }

    /// POSTs one message to the endpoint (in the background, via `Post(n)`);
    /// its answer arrives on the stream.
    pub async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        if self.closed {
            return Err(TransportError::Closed);
        }
        let mut headers = HeaderMap::new();
        for (name, value) in &self.options.headers {
            set_header(&mut headers, name, value)?;
        }
        set_header(&mut headers, CONTENT_TYPE.as_str(), "application/json")?;
        if let Some(v) = &self.protocol_version {
            set_header(&mut headers, VERSION_HEADER, v)?;
        }
        self.posts += 1;
        let via = Via::Post(self.posts);
        let body = strip_newline(bytes).to_vec();
        let (client, url, emitter) = (
            self.client.clone(),
            self.endpoint.clone(),
            self.emitter.clone(),
        );
        let timeout = self.options.request_timeout;
        let max = self.options.max_message;
        let (headed, accepted) = self.order.pending();
        self.heads.push(self.posts, accepted);
        let task = tokio::spawn(async move {
            let mut record = request_record("POST", &url, &headers, &body, false);
            let request = client.post(url).headers(headers).body(body);
            let sent = tokio::time::timeout(timeout, request.send()).await;
            drop(headed);
            match sent {
                Ok(Ok(resp)) => {
                    response_into(&mut record, resp.status().as_u16(), resp.headers());
                    // Answers belong on the stream; one sent in the POST's
                    // body anyway is passed on (via `Post(n)`) for the runner
                    // to judge, not lost.
                    let (mut resp, mut record) = (resp, record);
                    let (body, len, _) =
                        crate::client::read_body(&mut resp, max + 1, timeout).await;
                    let _delivering = emitter.inflight.enter();
                    record.body = crate::event::body_text(&body);
                    emitter.emit(via, Event::Http(Box::new(record))).await;
                    if len <= max && crate::client::looks_like_json(&body) {
                        emitter.frame(via, body).await;
                    }
                }
                Ok(Err(e)) => {
                    record.error = Some(describe(&e));
                    emitter.emit(via, Event::Http(Box::new(record))).await;
                }
                Err(_) => {
                    record.error = Some(format!("no response headers within {timeout:?}"));
                    emitter.emit(via, Event::Http(Box::new(record))).await;
                }
            }
        });
        self.tasks.retain(|t| !t.is_finished());
        self.tasks.push(task.abort_handle());
        Ok(())
    }

    /// Waits until the server has accepted the last message sent (its POST
    /// has its response head, or failed), at most the request timeout.
    pub async fn accepted(&mut self) {
        self.heads
            .wait(self.posts, self.options.request_timeout)
            .await;
    }

    /// The number of the last POST sent (`Via::Post(n)`).
    pub fn last_post(&self) -> u64 {
        self.posts
    }

    /// Waits until the request POST `n` carried has reached the server: its
    /// 202, which the legacy transport gives on receipt (answers come on the
    /// stream), at most `within`. True when it waited.
    pub async fn received(&mut self, n: u64, within: Duration) -> bool {
        self.heads.wait(n, within).await
    }

    /// A transport-level exchange (relative URLs resolve against the POST
    /// endpoint); recorded via `Raw(n)`, its answer not put on the frame stream.
    /// Like Streamable HTTP's, it waits (bounded) for the POSTs sent before it.
    pub async fn exchange(&mut self, req: RawRequest) -> Result<RawResponse, TransportError> {
        self.order
            .after(self.posts, self.options.request_timeout)
            .await;
        self.raws += 1;
        let via = Via::Raw(self.raws);
        let url = raw::resolve(&self.endpoint, req.url.as_deref())?;
        let version = self.protocol_version.clone();
        let (resp, record) = raw::exchange(&url, &req, &self.options, None, version).await;
        self.emitter.emit_now(via, Event::Http(Box::new(record)));
        resp
    }

    /// Closes the event stream (how a legacy session ends) and reports `Closed`.
    pub fn close_input(&mut self) {
        if self.closed {
            return;
        }
        self.kill();
        self.emitter.emit_now(
            Via::Legacy,
            Event::Closed("session closed by the harness (SSE stream closed)".into()),
        );
    }

    /// The next event; `None` never while the session lives.
    pub async fn recv(&mut self) -> Option<Stamped> {
        let e = self.events.recv().await;
        if let Some(Stamped {
            event: Event::Closed(_),
            ..
        }) = &e
        {
            self.closed = true;
        }
        e
    }

    /// True once the stream ended or the session was closed or killed.
    pub fn has_exited(&self) -> bool {
        self.closed
    }

    /// True while a reader holds received bytes whose events are not sent
    /// on yet (see `inflight`).
    pub fn delivering(&self) -> bool {
        self.emitter.inflight.any()
    }

    /// Aborts the stream and every POST now.
    pub fn kill(&mut self) {
        self.closed = true;
        self.stream.abort();
        for t in self.tasks.drain(..) {
            t.abort();
        }
    }
}

impl Drop for LegacySseSession {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Aborts the stream task if `connect` fails.
struct AbortGuard(Option<AbortHandle>);

impl AbortGuard {
    fn disarm(mut self) -> Option<AbortHandle> {
        self.0.take()
    }
}

impl Drop for AbortGuard {
    fn drop(&mut self) {
        if let Some(h) = &self.0 {
            h.abort();
        }
    }
}

/// The stream task: GET, report the endpoint, then read to the end.
async fn stream(
    client: reqwest::Client,
    url: reqwest::Url,
    options: HttpOptions,
    emitter: Emitter,
    start: oneshot::Sender<Start>,
    first_event: Arc<Mutex<Option<String>>>,
) {
    let mut headers = HeaderMap::new();
    for (name, value) in &options.headers {
        if set_header(&mut headers, name, value).is_err() {
            let _ = start.send(Start::Failed(TransportError::InvalidHeader {
                name: name.clone(),
            }));
            return;
        }
    }
    headers.insert(
        ACCEPT,
        reqwest::header::HeaderValue::from_static("text/event-stream"),
    );
    let mut record = request_record("GET", &url, &headers, &[], false);
    let timeout = options.request_timeout;
    let request = client.get(url.clone()).headers(headers);
    let mut resp = match tokio::time::timeout(timeout, request.send()).await {
        Ok(Ok(resp)) => resp,
        Ok(Err(e)) => {
            let fail = if e.is_connect() {
                TransportError::Connect {
                    url: url.to_string(),
                    detail: describe(&e),
                }
            } else {
                TransportError::Exchange {
                    url: url.to_string(),
                    detail: describe(&e),
                }
            };
            let _ = start.send(Start::Failed(fail));
            return;
        }
        Err(_) => {
            let _ = start.send(Start::Failed(TransportError::Timeout {
                url: url.to_string(),
                after: timeout,
            }));
            return;
        }
    };
    let status = resp.status().as_u16();
    response_into(&mut record, status, resp.headers());
    if !resp.status().is_success()
        || media_type(resp.headers()).as_deref() != Some("text/event-stream")
    {
        let _ = start.send(Start::Failed(TransportError::NotAStream {
            url: url.to_string(),
            status,
        }));
        let max = options.max_message;
        finish_plain(&emitter, Via::Legacy, record, resp, max, timeout).await;
        return;
    }
    record.body = "SSE stream".to_owned();
    emitter
        .emit(Via::Legacy, Event::Http(Box::new(record)))
        .await;
    let mut start = Some(start);
    let end = read_sse(
        &emitter,
        Via::Legacy,
        &mut resp,
        options.max_message,
        &mut Owed::default(),
        |ev| {
            if let Ok(mut first) = first_event.lock() {
                first.get_or_insert_with(|| ev.event.clone());
            }
            if ev.event == "endpoint" {
                if let Some(tx) = start.take() {
                    let first = first_event
                        .lock()
                        .ok()
                        .and_then(|f| f.clone())
                        .unwrap_or_default();
                    let _ = tx.send(Start::Endpoint {
                        first_event: first,
                        data: ev.data.clone(),
                    });
                }
            }
            true
        },
    )
    .await;
    if end.abandoned {
        return;
    }
    let why = match end.error {
        Some(e) => format!("the SSE stream broke: {e}"),
        None => "the server ended the SSE stream".to_owned(),
    };
    emitter.emit(Via::Legacy, Event::Closed(why)).await;
}
