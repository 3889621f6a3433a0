//! The server side of the HTTP transports: [`HttpPeer`], a small HTTP/1.1
//! server on 127.0.0.1 that an MCP client under test connects to, while the
//! runner plays the scripted server through it.
//!
//! ```text
//!   client ──► hyper (one task per connection) ──► handle ──► Http record, Frame … ──► recv()
//!   send(bytes) ──► state::deliver ──► the POST stream awaiting it | latest POST stream
//!                                      | standing stream (GET / legacy SSE) | Err
//!   close() ──► streams end, listener dropped, connections shut down (bounded)
//! ```
//!
//! - [`ServeKind::Streamable`] (2025-03-26 and later) at `/mcp`: POSTs whose
//!   requests are answered on an SSE stream per POST, `Mcp-Session-Id`
//!   issued with the answer to `initialize`, a standing GET stream, DELETE.
//! - [`ServeKind::LegacySse`] (2024-11-05): GET `/sse` opens the stream,
//!   whose first event `endpoint` names `/messages?session=ID`; POSTs there
//!   get 202 and everything the runner sends goes on the stream.
//!
//! The events are those of the client transports ([`crate::event`]): one
//! [`Event::Http`] record per request (credentials redacted), then the
//! POST's body as one [`Event::Frame`] (a batch stays one frame) via
//! `Post(n)`, n counting every POST the peer received. Requests the peer
//! refuses (foreign `Origin`, wrong session id) are reported by their record
//! only. `handle` lists every answer. The peer judges nothing else: it
//! serves a POST with a wrong `Accept` all the same, and the runner reads
//! the record.
//!
//! Resumption exists only as a scenario asks for it ([`HttpPeer::cut_stream`],
//! [`resume`]): the peer sends no priming events of its own and replays
//! nothing else after `Last-Event-ID` (the header is recorded). No HTTP/2. A
//! second standing GET stream while one is open is refused with 409, as the
//! TypeScript SDK's server does.
//!
//! A [`Gate`] (the runner's protected mode) may stand in front of the
//! endpoints: it sees each request first and answers the ones it owns
//! (reported as `Via::Raw(n)`, record only).

mod gate;
pub(crate) mod handle;
mod resume;
mod sse;
mod state;
#[cfg(test)]
mod tests;

use std::convert::Infallible;
use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::{AbortHandle, JoinSet};

use crate::client::{Emitter, TransportError};
use crate::event::{Event, Stamped, Via};
use crate::streamable::strip_newline;
pub use resume::Cut;
use state::Shared;

pub use gate::{Gate, GateReply, GateRequest};

pub use mcpspec_wire::event::{LEGACY_POST_PATH, LEGACY_SSE_PATH, MCP_PATH};

/// Time a client has to send a request's headers.
const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Time connections get to finish after [`HttpPeer::close`].
const SHUTDOWN_GRACE: Duration = Duration::from_secs(1);

/// Which HTTP transport the peer serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServeKind {
    /// Streamable HTTP (2025-03-26 and later) at `/mcp`.
    Streamable,
    /// Legacy HTTP+SSE (2024-11-05) at `/sse` and `/messages`.
    LegacySse,
}

/// A scripted server's HTTP end, for one client under test.
#[derive(Debug)]
pub struct HttpPeer {
    url: String,
    shared: Arc<Shared>,
    events: mpsc::Receiver<Stamped>,
    server: AbortHandle,
    closed: bool,
    ended: bool,
}

impl HttpPeer {
    /// Binds 127.0.0.1 on a free port and starts serving; bodies over
    /// `max_line` bytes are refused (413) and reported as oversize frames.
    /// [`HttpPeer::url`] is what the client is given.
    pub async fn bind(kind: ServeKind, max_line: usize) -> io::Result<HttpPeer> {
        Self::bind_gated(kind, max_line, None).await
    }

    /// As [`HttpPeer::bind`], with `gate` in front of the endpoints: it
    /// sees every request first and may answer it itself ([`Gate`]).
    pub async fn bind_gated(
        kind: ServeKind,
        max_line: usize,
        gate: Option<Arc<dyn Gate>>,
    ) -> io::Result<HttpPeer> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let port = listener.local_addr()?.port();
        let path = match kind {
            ServeKind::Streamable => MCP_PATH,
            ServeKind::LegacySse => LEGACY_SSE_PATH,
        };
        let (emitter, events) = Emitter::new();
        let shared = Arc::new(Shared::new(kind, port, max_line, emitter, gate));
        let server = tokio::spawn(serve(listener, shared.clone())).abort_handle();
        Ok(HttpPeer {
            url: format!("http://127.0.0.1:{port}{path}"),
            shared,
            events,
            server,
            closed: false,
            ended: false,
        })
    }

    /// Streamable: `http://127.0.0.1:PORT/mcp`; legacy: `http://127.0.0.1:PORT/sse`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Which transport the peer serves.
    pub fn kind(&self) -> ServeKind {
        self.shared.kind
    }

    /// Time since [`HttpPeer::bind`].
    pub fn elapsed(&self) -> Duration {
        self.shared.emitter.elapsed()
    }

    /// The live session id (issued with the answer to `initialize`, or the
    /// legacy stream's), if any.
    pub fn session_id(&self) -> Option<String> {
        self.shared.lock().session.clone()
    }

    /// The next event; never `None` while the peer lives (callers bound
    /// their waits).
    pub async fn recv(&mut self) -> Option<Stamped> {
        let e = self.events.recv().await;
        if let Some(Stamped {
            event: Event::Closed(_),
            ..
        }) = &e
        {
            self.ended = true;
        }
        e
    }

    /// True once the client ended its session (DELETE, legacy stream
    /// closed; as reported by [`HttpPeer::recv`]) or the peer was closed.
    pub fn has_exited(&self) -> bool {
        self.ended || self.closed
    }

    /// True while a POST's record or frame is not sent on yet (see
    /// `inflight`).
    pub fn delivering(&self) -> bool {
        self.shared.emitter.inflight.any()
    }

    /// Sends one message of the scripted server (a trailing newline is
    /// stripped) on the stream it belongs to: a response on the response
    /// stream of the POST that carried its request (which then ends once
    /// it owes nothing more), anything else on the most recent open POST
    /// stream, else on the standing stream (Streamable: GET; legacy: the
    /// SSE stream, which carries everything). Errs when no open stream can
    /// carry it.
    pub async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        let mut inner = self.shared.lock();
        if inner.closed {
            return Err(TransportError::Closed);
        }
        inner
            .deliver(self.shared.kind, strip_newline(bytes))
            .map_err(TransportError::NoStream)
    }

    /// Ends the response stream of the POST that awaits an answer to `id`
    /// before that answer: a priming event (an event id, `retry` when given,
    /// empty data) goes out, then the stream ends. The answer, when sent,
    /// waits for the client's GET whose `Last-Event-ID` names that event
    /// (see [`resume`]). Errs when no open POST stream awaits `id`.
    pub fn cut_stream(
        &mut self,
        id: &mcpspec_wire::Id,
        retry_ms: Option<u64>,
    ) -> Result<Cut, TransportError> {
        let mut inner = self.shared.lock();
        if inner.closed {
            return Err(TransportError::Closed);
        }
        let mut cut = inner
            .cut_stream(id, retry_ms)
            .map_err(TransportError::NoStream)?;
        cut.at = self.elapsed();
        Ok(cut)
    }

    /// Whether a GET with `Last-Event-ID` resumed the cut stream of POST `n`.
    pub fn resumed(&self, n: u64) -> bool {
        self.shared.lock().resumptions.contains(&n)
    }

    /// The server "disconnects": every open stream ends, no connection is
    /// accepted any more, open connections get [`SHUTDOWN_GRACE`] to finish,
    /// and `Closed` is reported.
    pub fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        {
            let mut inner = self.shared.lock();
            inner.closed = true;
            inner.end_session();
        }
        self.shared.stop.send_replace(true);
        let via = match self.shared.kind {
            ServeKind::Streamable => Via::Get,
            ServeKind::LegacySse => Via::Legacy,
        };
        self.shared.emitter.emit_now(
            via,
            Event::Closed("the scripted server closed its end".into()),
        );
    }
}

impl Drop for HttpPeer {
    fn drop(&mut self) {
        // Nothing is reported any more: the streams' end hooks stay quiet.
        self.shared.lock().closed = true;
        // Aborting the server task drops its connection tasks with it.
        self.server.abort();
    }
}

/// Accepts connections until the peer closes, then lets them finish
/// (bounded). Connection tasks live in a [`JoinSet`] owned here, so
/// aborting this task aborts them all.
async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let mut stop = shared.stop.subscribe();
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(connection(stream, shared.clone(), shared.stop.subscribe()));
                }
                // Out of file descriptors and the like: wait, then go on.
                Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            },
            () = stopped(&mut stop) => break,
        }
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    let finish = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, finish).await;
    // Dropping `connections` aborts the connections still open.
}

/// Serves one connection; on stop, finishes the request in flight and
/// closes.
async fn connection(stream: TcpStream, shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let service = service_fn(move |req| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(handle::handle(shared, req).await) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let conn = builder.serve_connection(TokioIo::new(stream), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        () = stopped(&mut stop) => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}

/// Resolves once the peer is closing (or gone).
async fn stopped(stop: &mut watch::Receiver<bool>) {
    // Err: the sender is gone, which also means stopping.
    let _ = stop.wait_for(|stop| *stop).await;
}
