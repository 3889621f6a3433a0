//! One MCP session: a task that owns a sans-IO `ReferenceServer`, feeds it
//! the POSTed bodies and the time (like the stdio driver: `on_tick` at
//! `next_deadline`), and routes every message it emits.
//!
//! ```text
//!   Cmd::Post ─► on_frame ─┐                 Streamable HTTP            legacy HTTP+SSE
//!   timer ────► on_tick ───┼─► messages ─►   response → its request's   every message →
//!                          │                   body or stream           `event: message`
//!   Cmd::Get / Cmd::Delete ┘                 emitted while handling a    on the one stream
//!                                              request → that request
//!                                            progress → the stream of
//!                                              the request with its token
//!                                            anything else → GET stream
//! ```
//!
//! A POSTed request is answered with a JSON body when its answer is the
//! only message it produced at once; otherwise (notifications first, an
//! answer that comes later from a timer, no answer yet) with an SSE stream
//! that carries the related messages and closes after the response (see
//! `streams`; at 2025-11-25 it opens with a priming event). The server asking to exit (`Output::Exit`, e.g. the
//! `exit-on-call` fault) ends the session: the request that caused it gets
//! HTTP 500 with no body, and later requests naming the session get 404.

use std::collections::{BTreeSet, HashMap};

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use mcpspec_reference::{Fault, Output, ReferenceServer};
use mcpspec_wire::Frame;
use tokio::sync::{mpsc, oneshot};
use tokio::time::{sleep_until, Duration, Instant};

use crate::checks::{self, SESSION_HEADER};
use crate::messages::{join, parse_outputs, status_of, Kind, Msg, Shape};
use crate::sse::{self, EventTx};
use crate::streams::{Flags, Streams, GET_STREAM};
use crate::{App, Table};

/// The `http-foreign-progress-on-stream` fault's notification: a token no
/// request supplied.
const FOREIGN_PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"mcpspec-reference-elsewhere","progress":1}}"#;

/// What the endpoints ask of a session.
pub(crate) enum Cmd {
    /// A POSTed body, with its `MCP-Protocol-Version` header.
    Post {
        body: Bytes,
        version: Option<String>,
        reply: oneshot::Sender<Response>,
    },
    /// A GET on `/mcp`, possibly resuming with `Last-Event-ID`.
    Get {
        last_event_id: Option<String>,
        version: Option<String>,
        reply: oneshot::Sender<Response>,
    },
    Delete {
        version: Option<String>,
        reply: oneshot::Sender<Response>,
    },
}

/// Sends a command and waits for its response; `None` if the session ended.
pub(crate) async fn ask(
    tx: &mpsc::Sender<Cmd>,
    make: impl FnOnce(oneshot::Sender<Response>) -> Cmd,
) -> Option<Response> {
    let (reply, answer) = oneshot::channel();
    tx.send(make(reply)).await.ok()?;
    answer.await.ok()
}

/// Named 2026-07-28 errors go out with 400 (unless the fault says 200).
pub(crate) fn named_400(app: &App) -> bool {
    !app.has(Fault::HttpNamedErrorStatus200)
}

/// The answer to a body that is not a JSON-RPC message (always 400).
fn invalid_reply(app: &App, parse: bool, exit: bool, msgs: &[Msg]) -> Response {
    if exit {
        checks::empty(StatusCode::INTERNAL_SERVER_ERROR)
    } else if parse && app.has(Fault::HttpMalformedNoErrorBody) || msgs.is_empty() {
        checks::empty(StatusCode::BAD_REQUEST)
    } else if app.has(Fault::HttpMalformed200) {
        checks::json_response(StatusCode::OK, join(msgs), checks::JSON)
    } else {
        checks::json_response(StatusCode::BAD_REQUEST, join(msgs), checks::JSON)
    }
}

/// The answer to a body of notifications and responses only.
fn quiet_reply(app: &App, exit: bool, msgs: &[Msg]) -> Response {
    if exit {
        checks::empty(StatusCode::INTERNAL_SERVER_ERROR)
    } else if !msgs.is_empty() {
        // Only faults answer these (`answer-notification`).
        checks::json_response(status_of(msgs, named_400(app)), join(msgs), checks::JSON)
    } else if app.has(Fault::HttpNotification200) {
        checks::empty(StatusCode::OK)
    } else {
        checks::empty(StatusCode::ACCEPTED)
    }
}

/// A single JSON answer to a request.
fn json_reply(app: &App, msg: &Msg) -> Response {
    let content_type = if app.has(Fault::HttpResponseTextPlain) {
        "text/plain"
    } else {
        checks::JSON
    };
    checks::json_response(
        status_of(std::slice::from_ref(msg), named_400(app)),
        msg.text.clone().into_bytes(),
        content_type,
    )
}

/// Answers a POST outside any session, from a fresh server: bodies that are
/// not messages, and (the `http-missing-session-accepted` fault) requests
/// without a session id.
pub(crate) fn stateless(app: &App, body: &[u8]) -> Response {
    let shape = Shape::of(body);
    let mut server = ReferenceServer::new(app.config().clone());
    let outputs = server.on_frame(0, Ok(frame(body, 1)));
    let (msgs, exit) = parse_outputs(outputs, "none");
    match shape {
        Shape::Invalid { parse } => invalid_reply(app, parse, exit, &msgs),
        Shape::Quiet => quiet_reply(app, exit, &msgs),
        Shape::Requests { .. } if exit => checks::empty(StatusCode::INTERNAL_SERVER_ERROR),
        Shape::Requests { .. } => {
            checks::json_response(status_of(&msgs, named_400(app)), join(&msgs), checks::JSON)
        }
    }
}

fn frame(body: &[u8], line: u64) -> Frame {
    Frame {
        bytes: body.to_vec(),
        line,
        crlf: false,
    }
}

/// How the session's streams behave, from the faults.
fn stream_flags(app: &App) -> Flags {
    Flags {
        per_stream_ids: app.has(Fault::HttpEventIdsPerStream),
        stays_open: app.has(Fault::HttpSseStaysOpen),
        cross_replay: app.has(Fault::HttpResumeCrossReplay),
    }
}

/// Creates a Streamable HTTP session for an `initialize` POST; the session
/// exists (and the response carries `Mcp-Session-Id`) only if the server
/// initialised.
pub(crate) async fn create(app: App, body: Bytes, version: Option<String>) -> Response {
    let id = crate::ids::session_id(app.has(Fault::HttpSessionIdSpace));
    // The session's own count of open POST streams.
    let streams = Streams::new(stream_flags(&app), std::sync::Arc::default());
    let session = Session::new(app, id, Table::Streamable, Mode::Streamable(streams));
    let (tx, rx) = mpsc::channel(32);
    let (reply, answer) = oneshot::channel();
    let first = Cmd::Post {
        body,
        version,
        reply,
    };
    tokio::spawn(session.run(rx, Some((tx, first))));
    answer
        .await
        .unwrap_or_else(|_| checks::empty(StatusCode::INTERNAL_SERVER_ERROR))
}

/// Starts a session for one 2026-07-28 POST: no id, never registered, its
/// server told that requests without `_meta` are stateless ones
/// (`ReferenceServer::expecting_stateless`). Each POST stands alone, as the
/// protocol has it: two clients' request ids never meet in one server. Once
/// the returned sender is dropped it finishes what its timers owe, then ends.
pub(crate) fn spawn_stateless(app: App) -> mpsc::Sender<Cmd> {
    let streams = Streams::new(stream_flags(&app), app.open_posts());
    let mut session = Session::new(
        app,
        "(stateless)".to_owned(),
        Table::Streamable,
        Mode::Streamable(streams),
    );
    session.server = ReferenceServer::new(session.app.config().clone()).expecting_stateless();
    session.one_request = true;
    let (tx, rx) = mpsc::channel(32);
    tokio::spawn(session.run(rx, None));
    tx
}

/// Starts a legacy session whose messages go to `events`; registered at once.
pub(crate) fn spawn_legacy(app: App, id: String, events: EventTx) {
    let (tx, rx) = mpsc::channel(32);
    app.register(Table::Legacy, id.clone(), tx);
    let session = Session::new(app, id, Table::Legacy, Mode::Legacy(events));
    tokio::spawn(session.run(rx, None));
}

enum Mode {
    Streamable(Streams),
    Legacy(EventTx),
}

/// Where one message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// The POST being handled.
    Mine,
    Stream(u64),
    Drop,
}

/// The POST being handled, for routing.
struct Current<'a> {
    unanswered: &'a mut BTreeSet<String>,
    tokens: &'a [String],
    has_requests: bool,
}

struct Session {
    app: App,
    id: String,
    table: Table,
    server: ReferenceServer,
    start: Instant,
    lines: u64,
    mode: Mode,
    stop: bool,
    /// Serves one 2026-07-28 POST: when its sender is gone it finishes its
    /// timers (a slow answer still streaming), then ends.
    one_request: bool,
}

impl Session {
    fn new(app: App, id: String, table: Table, mode: Mode) -> Self {
        let server = ReferenceServer::new(app.config().clone());
        Session {
            app,
            id,
            table,
            server,
            start: Instant::now(),
            lines: 0,
            mode,
            stop: false,
            one_request: false,
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Cmd>, first: Option<(mpsc::Sender<Cmd>, Cmd)>) {
        if let Some((tx, cmd)) = first {
            let (mut resp, reply) = self.respond(cmd);
            if self.server.version().is_some() && !self.stop {
                if let Ok(v) = HeaderValue::from_str(&self.id) {
                    resp.headers_mut().insert(SESSION_HEADER, v);
                }
                self.app.register(self.table, self.id.clone(), tx);
            } else {
                self.stop = true;
            }
            let _ = reply.send(resp); // the client may have gone
        }
        let legacy = match &self.mode {
            Mode::Legacy(tx) => Some(tx.clone()),
            Mode::Streamable(_) => None,
        };
        let mut inbox_open = true;
        while !self.stop {
            let deadline = self.server.next_deadline();
            if !inbox_open && deadline.is_none() {
                break; // a one-request session with nothing left to send
            }
            let wake = self.start + Duration::from_millis(deadline.unwrap_or(0));
            let gone = async {
                match &legacy {
                    Some(tx) => tx.closed().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                cmd = rx.recv(), if inbox_open => match cmd {
                    Some(cmd) => {
                        let (resp, reply) = self.respond(cmd);
                        let _ = reply.send(resp); // the client may have gone
                    }
                    None if self.one_request => inbox_open = false,
                    None => break, // shutting down
                },
                () = self.app.closed(), if !inbox_open => break, // shutting down
                () = sleep_until(wake), if deadline.is_some() => {
                    // Never tick before the deadline, or the timer would spin.
                    let now = self.now().max(deadline.unwrap_or(0));
                    let outputs = self.server.on_tick(now);
                    self.route_unsolicited(outputs);
                }
                () = gone => break, // the legacy stream was closed
            }
        }
        self.app.unregister(self.table, &self.id);
    }

    fn respond(&mut self, cmd: Cmd) -> (Response, oneshot::Sender<Response>) {
        match cmd {
            Cmd::Post {
                body,
                version,
                reply,
            } => {
                let resp = match self.version_check(version.as_deref()) {
                    Some(bad) => bad,
                    None if matches!(self.mode, Mode::Legacy(_)) => self.legacy_post(&body),
                    None => self.post(&body),
                };
                (resp, reply)
            }
            Cmd::Get {
                last_event_id,
                version,
                reply,
            } => {
                let resp = self
                    .version_check(version.as_deref())
                    .unwrap_or_else(|| self.get(last_event_id.as_deref()));
                (resp, reply)
            }
            Cmd::Delete { version, reply } => {
                let resp = self.version_check(version.as_deref()).unwrap_or_else(|| {
                    if !self.app.has(Fault::HttpDeleteIgnored) {
                        self.stop = true;
                    }
                    checks::empty(StatusCode::OK)
                });
                (resp, reply)
            }
        }
    }

    /// 400 for a bad `MCP-Protocol-Version` (Streamable HTTP only).
    fn version_check(&self, header: Option<&str>) -> Option<Response> {
        if matches!(self.mode, Mode::Legacy(_))
            || self.app.has(Fault::HttpProtocolVersionNotChecked)
        {
            return None;
        }
        let negotiated = self.server.version()?;
        if header.is_none()
            && negotiated >= mcpspec_engine::Version::V2025_06_18
            && self.app.has(Fault::HttpProtocolVersionRequired)
        {
            return Some(checks::reject(
                StatusCode::BAD_REQUEST,
                "Bad Request: MCP-Protocol-Version header is required",
            ));
        }
        let reason = checks::bad_version_header(negotiated, header)?;
        Some(checks::reject(StatusCode::BAD_REQUEST, &reason))
    }

    fn feed(&mut self, body: &[u8]) -> (Vec<Msg>, bool) {
        self.lines += 1;
        let outputs = self
            .server
            .on_frame(self.now(), Ok(frame(body, self.lines)));
        let (msgs, exit) = parse_outputs(outputs, &self.id);
        self.stop |= exit;
        (msgs, exit)
    }

    /// A POST to `/mcp`.
    fn post(&mut self, body: &[u8]) -> Response {
        if let Mode::Streamable(streams) = &self.mode {
            if crate::streamable::refuses_concurrent(&self.app, streams.open_posts_now(), body) {
                return crate::streamable::concurrent_refusal();
            }
        }
        let shape = Shape::of(body);
        let (msgs, exit) = self.feed(body);
        let (mut unanswered, tokens) = match &shape {
            Shape::Requests { ids, tokens, .. } => (ids.clone(), tokens.clone()),
            _ => (BTreeSet::new(), Vec::new()),
        };
        // 2025-11-25 streams open with a priming event (a SHOULD of that
        // version only: later ones do not resume, earlier clients may not
        // expect an event without a message).
        let prime = self.server.version() == Some(mcpspec_engine::Version::V2025_11_25)
            && !self.app.has(Fault::HttpNoPrimingEvent);
        let Mode::Streamable(streams) = &mut self.mode else {
            return checks::empty(StatusCode::INTERNAL_SERVER_ERROR); // not reached: legacy_post
        };
        let mut mine = Vec::new();
        let mut answered = HashMap::new();
        let mut current = Current {
            unanswered: &mut unanswered,
            tokens: &tokens,
            has_requests: matches!(shape, Shape::Requests { .. }),
        };
        for m in msgs {
            match target(&self.app, streams, &m, Some(&mut current), &mut answered) {
                Target::Mine => mine.push(m),
                Target::Stream(k) => streams.push(k, &m.text),
                Target::Drop => drop_orphan(&self.id, &m),
            }
        }
        let resp = match shape {
            Shape::Invalid { parse } => invalid_reply(&self.app, parse, exit, &mine),
            Shape::Quiet => quiet_reply(&self.app, exit, &mine),
            Shape::Requests { .. } if exit && (!unanswered.is_empty() || mine.is_empty()) => {
                checks::empty(StatusCode::INTERNAL_SERVER_ERROR)
            }
            Shape::Requests { .. } => match mine.as_slice() {
                [only] if unanswered.is_empty() && only.is_response() => {
                    json_reply(&self.app, only)
                }
                _ => {
                    let (k, resp) = streams.open(unanswered, &tokens, prime);
                    if self.one_request && self.app.has(Fault::HttpForeignProgressOnStream) {
                        streams.push(k, FOREIGN_PROGRESS);
                    }
                    for m in &mine {
                        streams.push(k, &m.text);
                    }
                    resp
                }
            },
        };
        streams.settle();
        resp
    }

    /// A GET on `/mcp`: resume a stream, or the standalone stream.
    fn get(&mut self, last_event_id: Option<&str>) -> Response {
        let Mode::Streamable(streams) = &mut self.mode else {
            return checks::empty(StatusCode::METHOD_NOT_ALLOWED);
        };
        last_event_id
            .and_then(|id| streams.resume(id))
            .unwrap_or_else(|| streams.attach_get())
    }

    /// A POST to the legacy message endpoint: 202, answers on the stream.
    fn legacy_post(&mut self, body: &[u8]) -> Response {
        let (msgs, _exit) = self.feed(body);
        let in_body = self.app.has(Fault::SseAnswerInPostBody);
        let (for_body, for_stream): (Vec<Msg>, Vec<Msg>) =
            msgs.into_iter().partition(|m| in_body && m.is_response());
        self.legacy_send(&for_stream);
        if for_body.is_empty() {
            checks::empty(StatusCode::ACCEPTED)
        } else {
            checks::json_response(StatusCode::OK, join(&for_body), checks::JSON)
        }
    }

    /// Sends `msgs` on the legacy stream in one write (see `streams`: an
    /// answer and what follows it arrive together).
    fn legacy_send(&mut self, msgs: &[Msg]) {
        if msgs.is_empty() {
            return;
        }
        if let Mode::Legacy(tx) = &self.mode {
            let mut out = Vec::new();
            for m in msgs {
                out.extend_from_slice(&sse::event(None, "message", &m.text));
            }
            if tx.send(bytes::Bytes::from(out)).is_err() {
                self.stop = true; // the stream is gone, and the session with it
            }
        }
    }

    /// Messages from timers: to the stream of their request, or the GET stream.
    fn route_unsolicited(&mut self, outputs: Vec<Output>) {
        let (msgs, exit) = parse_outputs(outputs, &self.id);
        self.stop |= exit;
        match &mut self.mode {
            Mode::Legacy(_) => self.legacy_send(&msgs),
            Mode::Streamable(streams) => {
                let mut answered = HashMap::new();
                for m in msgs {
                    match target(&self.app, streams, &m, None, &mut answered) {
                        Target::Mine => {} // not produced without a current POST
                        Target::Stream(k) => streams.push(k, &m.text),
                        Target::Drop => drop_orphan(&self.id, &m),
                    }
                }
                streams.settle();
            }
        }
    }
}

fn drop_orphan(session: &str, m: &Msg) {
    eprintln!(
        "mcpspec-reference-http: session {session}: no request stream for {}; dropped",
        m.text
    );
}

/// Where message `m` goes (see the module documentation). `answered`
/// remembers where this round's responses went, so that a duplicate
/// response (the `duplicate-response` fault) follows the first.
fn target(
    app: &App,
    streams: &mut Streams,
    m: &Msg,
    current: Option<&mut Current<'_>>,
    answered: &mut HashMap<String, Target>,
) -> Target {
    let has_current = current.is_some();
    let requests = current.as_ref().is_some_and(|c| c.has_requests);
    if m.is_response() {
        let ids = m.ids();
        let mut to = None;
        if let Some(c) = current {
            if ids.is_empty() && m.is_error {
                // An error with no id rejects the body as a whole (a batch
                // under a version without batches): nothing else will come.
                c.unanswered.clear();
                to = Some(Target::Mine);
            } else if ids.iter().any(|i| c.unanswered.contains(i)) {
                for i in &ids {
                    c.unanswered.remove(i);
                }
                to = Some(Target::Mine);
            }
        }
        if to.is_none() {
            for i in &ids {
                if let Some(k) = streams.take_pending(i) {
                    to = Some(Target::Stream(k));
                }
            }
        }
        let to = to
            .or_else(|| ids.iter().find_map(|i| answered.get(i).copied()))
            .unwrap_or(if has_current {
                Target::Mine
            } else {
                Target::Drop
            });
        for i in ids {
            answered.insert(i, to);
        }
        if to != Target::Drop && app.has(Fault::HttpResponseOnGetStream) && streams.get_is_live() {
            return Target::Stream(GET_STREAM);
        }
        return to;
    }
    if let Kind::Progress(Some(token)) = &m.kind {
        if let Some(c) = &current {
            if c.tokens.contains(token) {
                return Target::Mine;
            }
        }
        if let Some(k) = streams.token_stream(token) {
            return Target::Stream(k);
        }
    }
    if requests {
        Target::Mine
    } else {
        Target::Stream(GET_STREAM)
    }
}
