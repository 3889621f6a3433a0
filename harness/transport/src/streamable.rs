//! Streamable HTTP client (MCP 2025-03-26 onward): one endpoint URL, every
//! message POSTed, answers in the POST's response (a JSON body or an SSE
//! stream), an optional GET stream for server-initiated messages, DELETE to
//! end the session.
//!
//! ```text
//!   send(bytes) ──► task: POST ──► 202/204 ───────────► Http record
//!                               ├─► application/json ─► Http record, Frame
//!                               └─► text/event-stream ► Http record, SseEvent + Frame …
//!                                        │ cut before every request was answered,
//!                                        │ and the stream had event ids
//!                                        ▼
//!                                   GET + Last-Event-ID (Via::Resumed(n)) …
//!   open_get_stream() ──► task: GET ──► 405: Http record | SSE: events via Get
//!   close() / close_input() ──► DELETE (bounded) ──► Http record, Closed
//! ```
//!
//! `send` returns as soon as the POST task is started: a server that never
//! answers cannot hang the runner, whose own timeouts decide. Every task is
//! aborted when the session is killed or dropped.
//!
//! Headers: `Accept: application/json, text/event-stream` and
//! `Content-Type: application/json` on every POST; `Mcp-Session-Id` once a
//! response carried one (the latest wins); `MCP-Protocol-Version` once the
//! runner set it with [`HttpSession::set_protocol_version`].
//!
//! [`HttpMisbehaviour`] (from [`HttpOptions::misbehave`], changed later with
//! [`HttpSession::set_misbehaviour`]) breaks those header rules on purpose,
//! one switch per rule, for a reference client that must be caught:
//!
//! | switch                  | what goes out instead                                  |
//! |-------------------------|--------------------------------------------------------|
//! | `post_accept_json_only` | POST `Accept: application/json`                        |
//! | `get_accept_json`       | GET `Accept: application/json` (standalone and resumed) |
//! | `no_session_echo`       | no `Mcp-Session-Id`, though the server issued one       |
//! | `no_version_header`     | no `MCP-Protocol-Version`, though it is set             |
//! | `no_routing_headers`    | no `Mcp-Method` / `Mcp-Name` (2026-07-28)               |
//! | `version_header`        | this `MCP-Protocol-Version`, whatever the session's or the request's `_meta` version |
//! | `no_param_headers`      | no `Mcp-Param-*` (2026-07-28 custom headers)            |
//! | `plain_param_headers`   | `Mcp-Param-*` values never Base64-encoded               |
//! | `resume_ignores_retry`  | a cut stream resumed at once, `retry` ignored           |
//! | `resume_without_last_event_id` | the resuming GET without `Last-Event-ID`         |
//! | `no_resume`             | a cut stream never resumed                               |
//!
//! A cut stream is resumed after the `retry` the server sent (none: at
//! once), unless it asked for more than [`RESUME_DELAY_MAX`]: then not at all.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, ACCEPT, CONTENT_TYPE};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::client::{
    build_client, describe, finish_plain, media_type, parse_url, read_sse, request_record,
    response_into, set_header, Emitter, HttpOptions, Owed, TransportError,
};
use crate::event::{Event, HttpRecord, Stamped, Via};
use crate::raw::{self, RawRequest, RawResponse};
pub use misbehaviour::HttpMisbehaviour;
pub use params::ParamTools;
use routing::{routing_headers, STATELESS_SINCE};

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";
/// Longest `retry` the client honours before resuming a cut stream. A
/// server asking for more is not reconnected to at all: resuming sooner
/// would break its `retry` (`basic/transports#sending-messages-to-the-server`:
/// the client waits the given milliseconds), and a minute bounds how long a
/// request task lingers for one stream.
pub const RESUME_DELAY_MAX: Duration = Duration::from_secs(60);
/// State the background tasks share with the session.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) client: reqwest::Client,
    pub(crate) url: reqwest::Url,
    pub(crate) options: HttpOptions,
    pub(crate) emitter: Emitter,
    pub(crate) session_id: Mutex<Option<String>>,
    pub(crate) protocol_version: Mutex<Option<String>>,
    /// Starts as `options.misbehave`; see [`HttpSession::set_misbehaviour`].
    pub(crate) misbehave: Mutex<HttpMisbehaviour>,
    /// Which POSTs have their response head: a scenario's raw exchange
    /// waits for the POSTs sent before it ([`HttpSession::exchange`]).
    pub(crate) order: crate::order::PostOrder,
    /// See [`HttpSession::set_param_tools`].
    pub(crate) param_tools: Mutex<ParamTools>,
}

impl Shared {
    pub(crate) fn session_id(&self) -> Option<String> {
        self.session_id.lock().ok().and_then(|s| s.clone())
    }

    pub(crate) fn protocol_version(&self) -> Option<String> {
        self.protocol_version.lock().ok().and_then(|v| v.clone())
    }

    pub(crate) fn misbehave(&self) -> HttpMisbehaviour {
        self.misbehave.lock().map(|m| m.clone()).unwrap_or_default()
    }

    fn capture_session(&self, headers: &HeaderMap) {
        if let Some(id) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) {
            if let Ok(mut slot) = self.session_id.lock() {
                *slot = Some(id.to_owned());
            }
        }
    }

    /// Session and version headers plus the configured extra ones.
    fn common_headers(&self) -> Result<HeaderMap, TransportError> {
        common_headers(
            &self.options.headers,
            self.session_id().as_deref(),
            self.protocol_version().as_deref(),
            &self.misbehave(),
        )
    }
}

/// The headers of every request: the configured extra ones, the session id
/// (once issued) and the protocol version (once set), as `m` allows.
fn common_headers(
    extra: &[(String, String)],
    session_id: Option<&str>,
    version: Option<&str>,
    m: &HttpMisbehaviour,
) -> Result<HeaderMap, TransportError> {
    let mut h = HeaderMap::new();
    for (name, value) in extra {
        set_header(&mut h, name, value)?;
    }
    if let Some(id) = session_id.filter(|_| !m.no_session_echo) {
        set_header(&mut h, SESSION_HEADER, id)?;
    }
    if let Some(v) = m.version(version) {
        set_header(&mut h, VERSION_HEADER, v)?;
    }
    Ok(h)
}

/// A POST's headers: `common` plus Accept, Content-Type and, from
/// 2026-07-28 (`version`, the session's), the routing headers of `body`.
fn post_headers(
    mut headers: HeaderMap,
    version: Option<&str>,
    m: &HttpMisbehaviour,
    body: &[u8],
) -> Result<HeaderMap, TransportError> {
    set_header(&mut headers, ACCEPT.as_str(), m.post_accept())?;
    set_header(&mut headers, CONTENT_TYPE.as_str(), "application/json")?;
    if version.is_some_and(|v| v >= STATELESS_SINCE) {
        for (name, value) in routing_headers(body) {
            let value = if name == VERSION_HEADER {
                match m.version(Some(&value)) {
                    Some(v) => v.to_owned(),
                    None => {
                        headers.remove(VERSION_HEADER);
                        continue;
                    }
                }
            } else if m.no_routing_headers {
                continue;
            } else {
                value
            };
            set_header(&mut headers, name, &value)?;
        }
    }
    Ok(headers)
}

/// A Streamable HTTP session with one MCP endpoint.
#[derive(Debug)]
pub struct HttpSession {
    shared: Arc<Shared>,
    events: mpsc::Receiver<Stamped>,
    tasks: Vec<AbortHandle>,
    posts: u64,
    raws: u64,
    closed: bool,
    /// The POSTs without their response head yet, for
    /// [`HttpSession::accepted`] and [`HttpSession::received`].
    heads: crate::order::Heads,
}

impl HttpSession {
    /// A session with the endpoint at `url`. No traffic until the first send.
    pub fn connect(url: &str, options: HttpOptions) -> Result<Self, TransportError> {
        let url = parse_url(url)?;
        let client = build_client(&options)?;
        let (emitter, events) = Emitter::new();
        Ok(HttpSession {
            shared: Arc::new(Shared {
                client,
                url,
                emitter,
                session_id: Mutex::new(None),
                protocol_version: Mutex::new(None),
                misbehave: Mutex::new(options.misbehave.clone()),
                order: crate::order::PostOrder::new(),
                param_tools: Mutex::new(ParamTools::new()),
                options,
            }),
            events,
            tasks: Vec::new(),
            posts: 0,
            raws: 0,
            closed: false,
            heads: crate::order::Heads::default(),
        })
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        self.shared.url.as_str()
    }

    /// The session id the server issued, once a response carried one.
    pub fn session_id(&self) -> Option<String> {
        self.shared.session_id()
    }

    /// Sends `MCP-Protocol-Version: v` on every later request (`None`: stop).
    pub fn set_protocol_version(&mut self, version: Option<String>) {
        if let Ok(mut slot) = self.shared.protocol_version.lock() {
            *slot = version;
        }
    }

    /// The tools whose `x-mcp-header` parameters later `tools/call` POSTs
    /// mirror into `Mcp-Param-*` headers (2026-07-28; see `params`).
    pub fn set_param_tools(&mut self, tools: ParamTools) {
        if let Ok(mut slot) = self.shared.param_tools.lock() {
            *slot = tools;
        }
    }

    /// Replaces the header misbehaviour of every later request (a running
    /// stream keeps the headers it was opened with).
    pub fn set_misbehaviour(&mut self, misbehave: HttpMisbehaviour) {
        if let Ok(mut slot) = self.shared.misbehave.lock() {
            *slot = misbehave;
        }
    }

    /// Time since the session was created.
    pub fn elapsed(&self) -> Duration {
        self.shared.emitter.elapsed()
    }

    /// Waits until every POST sent so far has its response head, at most
    /// the request timeout.
    async fn after_posts(&self) {
        let within = self.shared.options.request_timeout;
        self.shared.order.after(self.posts, within).await;
    }

    fn track(&mut self, handle: AbortHandle) {
        self.tasks.retain(|t| !t.is_finished());
        self.tasks.push(handle);
    }

    /// POSTs one message (a trailing newline is stripped); the exchange runs
    /// in the background and reports on the event channel via `Post(n)`.
    pub async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        if self.closed {
            return Err(TransportError::Closed);
        }
        let body = strip_newline(bytes).to_vec();
        let misbehave = self.shared.misbehave();
        let version = self.shared.protocol_version();
        let mut headers = post_headers(
            self.shared.common_headers()?,
            version.as_deref(),
            &misbehave,
            &body,
        )?;
        if version.as_deref().is_some_and(|v| v >= STATELESS_SINCE) && !misbehave.no_param_headers {
            let tools = self
                .shared
                .param_tools
                .lock()
                .map(|t| t.clone())
                .unwrap_or_default();
            let plain = misbehave.plain_param_headers;
            for (name, value) in params::param_headers(&tools, &body, plain) {
                match set_header(&mut headers, &name, &value) {
                    Ok(()) => {}
                    // A plain value no header can carry: left out.
                    Err(_) if plain => {}
                    Err(e) => return Err(e),
                }
            }
        }
        self.posts += 1;
        let via = Via::Post(self.posts);
        let (headed, accepted) = self.shared.order.pending();
        self.heads.push(self.posts, accepted);
        let shared = self.shared.clone();
        let task = tokio::spawn(post(shared, via, headed, headers, body));
        self.track(task.abort_handle());
        Ok(())
    }

    /// The number of the last POST sent (`Via::Post(n)`), to name it to
    /// [`HttpSession::received`].
    pub fn last_post(&self) -> u64 {
        self.posts
    }

    /// Waits until the server has accepted the last message sent (its POST
    /// has its response head, or failed), at most the request timeout.
    pub async fn accepted(&mut self) {
        let within = self.shared.options.request_timeout;
        self.heads.wait(self.posts, within).await;
    }

    /// Waits until the request POST `n` carried has reached the server, as
    /// far as a client can tell: its response head, which a server that
    /// answers with an event stream sends as it takes the request up, and
    /// one that answers with JSON only with its answer (then the wait runs
    /// to `within`). True when it waited.
    pub async fn received(&mut self, n: u64, within: Duration) -> bool {
        self.heads.wait(n, within).await
    }

    /// Opens the optional GET stream for server-initiated messages (events
    /// via `Get`). A 405 is only recorded: servers need not offer it.
    pub fn open_get_stream(&mut self) -> Result<(), TransportError> {
        if self.closed {
            return Err(TransportError::Closed);
        }
        let headers = self.shared.common_headers()?;
        let shared = self.shared.clone();
        let task = tokio::spawn(async move {
            get_stream(&shared, Via::Get, headers, None, &mut Owed::default()).await;
        });
        self.track(task.abort_handle());
        Ok(())
    }

    /// A transport-level exchange for a scenario step; recorded via `Raw(n)`,
    /// its answer is not put on the frame stream, and it never changes the
    /// captured session id. Relative URLs resolve against the endpoint.
    ///
    /// Steps do not overtake the POSTs they follow: the exchange starts once
    /// every POST sent before it has its response head (bounded by the
    /// request timeout), so a scenario's DELETE cannot reach the server
    /// before the harness's own `notifications/initialized`.
    pub async fn exchange(&mut self, req: RawRequest) -> Result<RawResponse, TransportError> {
        self.after_posts().await;
        self.raws += 1;
        let via = Via::Raw(self.raws);
        let url = raw::resolve(&self.shared.url, req.url.as_deref())?;
        let mut attempt = 0;
        let (resp, record) = loop {
            let (resp, record) = raw::exchange(
                &url,
                &req,
                &self.shared.options,
                self.session_id(),
                self.shared.protocol_version(),
            )
            .await;
            // Too busy (429/503) is no answer to what the step sent: as a
            // POST's, it is sent again later (see `post`).
            let answer = resp.as_ref().ok().map(|r| {
                let asked = r.headers.iter().find(|(n, _)| n == "retry-after");
                (r.status, asked.map(|(_, v)| v.as_str()))
            });
            let limit = self.shared.options.limit.as_deref();
            if !crate::limit::wait_if_busy(limit, answer, attempt).await {
                break (resp, record);
            }
            attempt += 1;
        };
        self.shared
            .emitter
            .emit_now(via, Event::Http(Box::new(record)));
        resp
    }

    /// Ends the session: DELETE with the session id (bounded by
    /// `close_timeout`; a 405 is fine), then stops every stream and reports
    /// `Closed`. Without a session id there is nothing to delete.
    pub async fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.after_posts().await;
        delete(self.shared.clone()).await;
        self.abort_all();
    }

    /// Like [`HttpSession::close`], without waiting: the DELETE runs in a
    /// detached task bounded by `close_timeout`.
    pub fn close_input(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.abort_all();
        tokio::spawn(delete(self.shared.clone()));
    }

    /// The next event; never `None` while the session lives (callers bound
    /// their waits).
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

    /// True once the session was closed, killed, or the server unreachable.
    pub fn has_exited(&self) -> bool {
        self.closed
    }

    /// True while a reader holds received bytes whose events are not sent
    /// on yet (see `inflight`).
    pub fn delivering(&self) -> bool {
        self.shared.emitter.inflight.any()
    }

    /// Aborts every request and stream now (no DELETE).
    pub fn kill(&mut self) {
        self.closed = true;
        self.abort_all();
    }

    fn abort_all(&mut self) {
        for t in self.tasks.drain(..) {
            t.abort();
        }
    }
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        self.abort_all();
    }
}

/// One message's bytes without the line terminator the stdio framing adds.
pub(crate) fn strip_newline(bytes: &[u8]) -> &[u8] {
    let b = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// Reports a failed request; a refused connection ends the connection.
async fn failed(shared: &Shared, via: Via, mut record: HttpRecord, e: &reqwest::Error) {
    record.error = Some(describe(e));
    let emitter = &shared.emitter;
    emitter.emit(via, Event::Http(Box::new(record))).await;
    if e.is_connect() {
        let why = format!("could not connect to {}: {}", shared.url, describe(e));
        emitter.emit(via, Event::Closed(why)).await;
    }
}

/// One POST and everything its response brings, resumption included.
async fn post(
    shared: Arc<Shared>,
    via: Via,
    headed: crate::order::Pending,
    headers: HeaderMap,
    body: Vec<u8>,
) {
    let mut record = request_record("POST", &shared.url, &headers, &body, false);
    let mut owed = Owed::of_body(&body);
    let timeout = shared.options.request_timeout;
    let mut attempt = 0;
    let mut resp = loop {
        let request = shared
            .client
            .post(shared.url.clone())
            .headers(headers.clone())
            .body(body.clone());
        let sent = tokio::time::timeout(timeout, request.send()).await;
        let limit = shared.options.limit.as_ref();
        if let (Some(pause), Some(limit)) = (
            limit.and_then(|l| crate::limit::refused_post(l, &sent, attempt)),
            limit,
        ) {
            // Too busy, not an answer: the target is asked again later,
            // and the run opens fewer sessions meanwhile.
            limit.overloaded();
            tokio::time::sleep(pause).await;
            attempt += 1;
            continue;
        }
        match sent {
            Ok(Ok(resp)) => {
                if let Some(limit) = &shared.options.limit {
                    limit.answered();
                }
                break resp;
            }
            Ok(Err(e)) => return failed(&shared, via, record, &e).await,
            Err(_) => {
                record.error = Some(format!("no response headers within {timeout:?}"));
                shared
                    .emitter
                    .emit(via, Event::Http(Box::new(record)))
                    .await;
                return;
            }
        }
    };
    shared.capture_session(resp.headers());
    drop(headed);
    response_into(&mut record, resp.status().as_u16(), resp.headers());
    if media_type(resp.headers()).as_deref() != Some("text/event-stream") {
        let max = shared.options.max_message;
        finish_plain(&shared.emitter, via, record, resp, max, timeout).await;
        return;
    }
    record.body = "SSE stream".to_owned();
    if !shared
        .emitter
        .emit(via, Event::Http(Box::new(record)))
        .await
    {
        return;
    }
    let max = shared.options.max_message;
    let mut end = read_sse(&shared.emitter, via, &mut resp, max, &mut owed, |_| true).await;
    let Via::Post(n) = via else { return };
    let mut attempts = 0;
    // Resume a stream cut before it answered every request, when its event
    // ids make that possible.
    let misbehave = shared.misbehave();
    while !end.abandoned
        && !owed.is_empty()
        && !end.last_event_id.is_empty()
        && attempts < shared.options.resume_attempts
        && !misbehave.no_resume
    {
        attempts += 1;
        let delay = end.retry.map_or(Duration::ZERO, Duration::from_millis);
        if delay > RESUME_DELAY_MAX {
            // Waiting less than asked would break the server's `retry`.
            return;
        }
        if !misbehave.resume_ignores_retry {
            tokio::time::sleep(delay).await;
        }
        let Ok(headers) = shared.common_headers() else {
            return;
        };
        let last = end.last_event_id.clone();
        let naming = Some(last.as_str()).filter(|_| !misbehave.resume_without_last_event_id);
        match get_stream(&shared, Via::Resumed(n), headers, naming, &mut owed).await {
            Some(next) => {
                end = next;
                // A resumed stream without ids resumes from the same point.
                if end.last_event_id.is_empty() {
                    end.last_event_id = last;
                }
            }
            None => return,
        }
    }
}

/// A GET stream (standalone or resuming): `None` when no stream came.
async fn get_stream(
    shared: &Shared,
    via: Via,
    mut headers: HeaderMap,
    last_event_id: Option<&str>,
    owed: &mut Owed,
) -> Option<crate::client::StreamEnd> {
    set_header(
        &mut headers,
        ACCEPT.as_str(),
        shared.misbehave().get_accept(),
    )
    .ok()?;
    if let Some(id) = last_event_id {
        set_header(&mut headers, "last-event-id", id).ok()?;
    }
    let mut record = request_record("GET", &shared.url, &headers, &[], false);
    let timeout = shared.options.request_timeout;
    let request = shared.client.get(shared.url.clone()).headers(headers);
    let mut resp = match tokio::time::timeout(timeout, request.send()).await {
        Ok(Ok(resp)) => resp,
        Ok(Err(e)) => {
            failed(shared, via, record, &e).await;
            return None;
        }
        Err(_) => {
            record.error = Some(format!("no response headers within {timeout:?}"));
            shared
                .emitter
                .emit(via, Event::Http(Box::new(record)))
                .await;
            return None;
        }
    };
    response_into(&mut record, resp.status().as_u16(), resp.headers());
    let stream = resp.status().is_success()
        && media_type(resp.headers()).as_deref() == Some("text/event-stream");
    if !stream {
        let max = shared.options.max_message;
        finish_plain(&shared.emitter, via, record, resp, max, timeout).await;
        return None;
    }
    record.body = "SSE stream".to_owned();
    shared
        .emitter
        .emit(via, Event::Http(Box::new(record)))
        .await;
    let max = shared.options.max_message;
    Some(read_sse(&shared.emitter, via, &mut resp, max, owed, |_| true).await)
}

/// DELETE with the session id, bounded; then `Closed`.
async fn delete(shared: Arc<Shared>) {
    let emitter = &shared.emitter;
    if shared.session_id().is_none() {
        emitter.emit_now(
            Via::Delete,
            Event::Closed("session closed by the harness (no session id: no DELETE)".into()),
        );
        return;
    }
    let Ok(headers) = shared.common_headers() else {
        return;
    };
    let mut record = request_record("DELETE", &shared.url, &headers, &[], false);
    let timeout = shared.options.close_timeout;
    let request = shared.client.delete(shared.url.clone()).headers(headers);
    match tokio::time::timeout(timeout, request.send()).await {
        Ok(Ok(mut resp)) => {
            response_into(&mut record, resp.status().as_u16(), resp.headers());
            let (body, _, _) = crate::client::read_body(&mut resp, 4096, timeout).await;
            record.body = crate::event::body_text(&body);
        }
        Ok(Err(e)) => record.error = Some(describe(&e)),
        Err(_) => record.error = Some(format!("no response within {timeout:?}")),
    }
    let status = record
        .status
        .map_or_else(|| "no answer".to_owned(), |s| s.to_string());
    // Not waiting for room: nobody may be reading while the session closes.
    emitter.emit_now(Via::Delete, Event::Http(Box::new(record)));
    emitter.emit_now(
        Via::Delete,
        Event::Closed(format!("session closed by the harness (DELETE → {status})")),
    );
}

mod misbehaviour;
mod params;
mod routing;
#[cfg(test)]
mod tests;
