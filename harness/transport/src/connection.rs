//! [`Connection`]: one target, whatever its transport, behind the operations
//! the runner uses (send, receive, close, kill).
//!
//! The runner sends one message's bytes at a time; stdio writes them as they
//! are (the runner adds the newline), the HTTP transports strip a trailing
//! newline and POST them. Every transport reports on the same [`Stamped`]
//! event stream, so the runner's judging code is transport-blind except for
//! the records and provenance ([`crate::Via`]) HTTP adds.

use std::time::Duration;

use crate::client::TransportError;
use crate::event::{Stamped, Transport};
use crate::legacy::LegacySseSession;
use crate::peer::ClientPeer;
use crate::raw::{RawRequest, RawResponse};
use crate::stdio::StdioProcess;
use crate::streamable::HttpSession;

/// A connection to a target over one of the three transports.
#[derive(Debug)]
pub enum Connection {
    Stdio(StdioProcess),
    /// Streamable HTTP.
    Http(HttpSession),
    /// Legacy HTTP+SSE (2024-11-05); boxed, it is the largest.
    Sse(Box<LegacySseSession>),
    /// A client under test, which the harness serves (client scenarios).
    Peer(Box<ClientPeer>),
}

impl Connection {
    /// The transport's name for transcripts: `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        self.kind().as_str()
    }

    /// The transport, as the oracle and the runner tell them apart.
    pub fn kind(&self) -> Transport {
        match self {
            Connection::Stdio(_) => Transport::Stdio,
            Connection::Http(_) => Transport::Http,
            Connection::Sse(_) => Transport::Sse,
            Connection::Peer(p) => p.kind(),
        }
    }

    /// Sends one message's bytes (HTTP: returns once the POST has started).
    pub async fn send(&mut self, bytes: &[u8]) -> Result<(), TransportError> {
        match self {
            Connection::Stdio(p) => p.send(bytes).await.map_err(TransportError::from),
            Connection::Http(s) => s.send(bytes).await,
            Connection::Sse(s) => s.send(bytes).await,
            Connection::Peer(p) => p.send(bytes).await,
        }
    }

    /// Waits until the target has accepted the last message sent: over HTTP
    /// until its POST has its response head (bounded by the request
    /// timeout); a write to stdin, or to a client under test, is delivered
    /// when it returns.
    pub async fn accepted(&mut self) {
        match self {
            Connection::Http(s) => s.accepted().await,
            Connection::Sse(s) => s.accepted().await,
            Connection::Stdio(_) | Connection::Peer(_) => {}
        }
    }

    /// Over HTTP, the number of the POST that carried the last message sent
    /// (for [`Connection::received`]); `None` where a write is a delivery.
    pub fn last_post(&self) -> Option<u64> {
        match self {
            Connection::Http(s) => Some(s.last_post()),
            Connection::Sse(s) => Some(s.last_post()),
            Connection::Stdio(_) | Connection::Peer(_) => None,
        }
    }

    /// Waits until the request POST `post` carried has reached the target,
    /// as far as its answers let a client tell (see
    /// [`HttpSession::received`]), at most `within`; true when it waited.
    pub async fn received(&mut self, post: u64, within: Duration) -> bool {
        match self {
            Connection::Http(s) => s.received(post, within).await,
            Connection::Sse(s) => s.received(post, within).await,
            Connection::Stdio(_) | Connection::Peer(_) => false,
        }
    }

    /// The next event.
    pub async fn recv(&mut self) -> Option<Stamped> {
        match self {
            Connection::Stdio(p) => p.recv().await,
            Connection::Http(s) => s.recv().await,
            Connection::Sse(s) => s.recv().await,
            Connection::Peer(p) => p.recv().await,
        }
    }

    /// Time since the connection started.
    pub fn elapsed(&self) -> Duration {
        match self {
            Connection::Stdio(p) => p.elapsed(),
            Connection::Http(s) => s.elapsed(),
            Connection::Sse(s) => s.elapsed(),
            Connection::Peer(p) => p.elapsed(),
        }
    }

    /// Ends the input side: stdio closes stdin, Streamable HTTP sends DELETE
    /// (detached, bounded), legacy SSE closes the stream.
    pub fn close_input(&mut self) {
        match self {
            Connection::Stdio(p) => p.close_input(),
            Connection::Http(s) => s.close_input(),
            Connection::Sse(s) => s.close_input(),
            Connection::Peer(p) => p.close_input(),
        }
    }

    /// Like [`Connection::close_input`], waiting (bounded) for the DELETE.
    pub async fn close(&mut self) {
        match self {
            Connection::Http(s) => s.close().await,
            other => other.close_input(),
        }
    }

    /// Stops everything now: kills the process group, aborts every request.
    pub fn kill(&mut self) {
        match self {
            Connection::Stdio(p) => p.kill(),
            Connection::Http(s) => s.kill(),
            Connection::Sse(s) => s.kill(),
            Connection::Peer(p) => p.kill(),
        }
    }

    /// True while a reader holds bytes it took off the wire whose events
    /// are not on the channel yet (`inflight`): [`Connection::recv`]
    /// will have more in a moment, though nothing is waiting now.
    pub fn delivering(&self) -> bool {
        match self {
            Connection::Stdio(p) => p.delivering(),
            Connection::Http(s) => s.delivering(),
            Connection::Sse(s) => s.delivering(),
            Connection::Peer(p) => p.delivering(),
        }
    }

    /// True once the process exited or the session ended.
    pub fn has_exited(&self) -> bool {
        match self {
            Connection::Stdio(p) => p.has_exited(),
            Connection::Http(s) => s.has_exited(),
            Connection::Sse(s) => s.has_exited(),
            Connection::Peer(p) => p.has_exited(),
        }
    }

    /// Sets the `MCP-Protocol-Version` header for later HTTP requests (no-op
    /// on stdio).
    pub fn set_protocol_version(&mut self, version: Option<String>) {
        match self {
            Connection::Stdio(_) | Connection::Peer(_) => {}
            Connection::Http(s) => s.set_protocol_version(version),
            Connection::Sse(s) => s.set_protocol_version(version),
        }
    }

    /// The Streamable HTTP session id, once issued.
    pub fn session_id(&self) -> Option<String> {
        match self {
            Connection::Http(s) => s.session_id(),
            Connection::Peer(p) => p.session_id(),
            _ => None,
        }
    }

    /// Serving a client over Streamable HTTP: cuts the response stream that
    /// awaits an answer to `id` ([`crate::HttpPeer::cut_stream`]).
    pub fn cut_stream(
        &mut self,
        id: &mcpspec_wire::Id,
        retry_ms: Option<u64>,
    ) -> Result<crate::serve::Cut, TransportError> {
        match self {
            Connection::Peer(p) => p.cut_stream(id, retry_ms),
            _ => Err(TransportError::NoStream(
                "only a served client's response stream can be cut".to_owned(),
            )),
        }
    }

    /// Serving a client: whether it resumed the cut stream of POST `n`.
    pub fn resumed(&self, n: u64) -> bool {
        matches!(self, Connection::Peer(p) if p.resumed(n))
    }

    /// A raw HTTP exchange; `None` on stdio, which has no such thing.
    pub async fn exchange(
        &mut self,
        req: RawRequest,
    ) -> Option<Result<RawResponse, TransportError>> {
        match self {
            Connection::Stdio(_) | Connection::Peer(_) => None,
            Connection::Http(s) => Some(s.exchange(req).await),
            Connection::Sse(s) => Some(s.exchange(req).await),
        }
    }
}

impl From<StdioProcess> for Connection {
    fn from(p: StdioProcess) -> Self {
        Connection::Stdio(p)
    }
}

impl From<HttpSession> for Connection {
    fn from(s: HttpSession) -> Self {
        Connection::Http(s)
    }
}

impl From<LegacySseSession> for Connection {
    fn from(s: LegacySseSession) -> Self {
        Connection::Sse(Box::new(s))
    }
}
