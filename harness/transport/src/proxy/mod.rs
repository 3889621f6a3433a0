//! The I/O of `mcpspec proxy`: relaying a real client's traffic to a real
//! server unchanged, and telling the caller what crossed, as [`Tapped`]
//! observations in the order they happened.
//!
//! ```text
//!  stdio   host stdin ──► NdjsonDecoder (tap) ──► server stdin      Tap::Message / Tap::Unframed from the client
//!          host stdout ◄── NdjsonDecoder (tap) ◄── server stdout    … from the server
//!          host stderr ◄────────────────────────── server stderr    (passed through, not judged)
//!          server exit ──► Tap::Gone
//!  HTTP    request ──► body (tap) ──► upstream ──► status + headers: Tap::Http ──► body / SSE events (tap) ──► client
//! ```
//!
//! The proxy never judges: the caller feeds the taps to the two-sided judge
//! (`mcpspec_oracle::pair`). Each observation is tapped *before* its bytes
//! are passed on, so an answer is never tapped before the message it
//! answers. Bytes are relayed as they were read: a tap is a copy.
//!
//! - [`stdio`]: the server as a child process in a process group of its own
//!   (killed with the group; the transport's watchdog kills it if mcpspec
//!   is killed).
//! - [`http`]: a Streamable HTTP listener (loopback) relaying to an upstream
//!   URL, several sessions at once; each session is a connection of its
//!   own ([`Tapped::conn`]).

use std::time::Duration;

use mcpspec_wire::event::{Event, HttpRecord, Via};
use mcpspec_wire::FrameError;
use tokio::sync::mpsc;
use tokio::time::Instant;

pub mod http;
mod order;
mod sessions;
mod sse_relay;
pub mod stdio;

/// Which peer sent something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Peer {
    Client,
    Server,
}

/// One observation of the relayed traffic.
#[derive(Debug, Clone)]
pub enum Tap {
    /// `from` sent one message on `via`: a stdio line (without its line
    /// ending), a POST body, a JSON response body, an SSE message's data.
    Message {
        from: Peer,
        via: Via,
        bytes: Vec<u8>,
        /// A stdio line ended in `\r\n`.
        crlf: bool,
    },
    /// `from` sent a line the framing could not deliver as a message (over
    /// the limit, cut by the end of the stream, not UTF-8).
    Unframed {
        from: Peer,
        via: Via,
        error: FrameError,
    },
    /// One HTTP exchange, once the upstream's status and headers arrived
    /// (or it failed): the request and response sides.
    Http { via: Via, record: HttpRecord },
    /// The server's event stream on `via`: an [`Event::SseEvent`] (its data
    /// follows as a message) or an [`Event::SseError`].
    Sse { via: Via, event: Event },
    /// `side` went away: [`Event::Exited`] or [`Event::Closed`].
    Gone { side: Peer, via: Via, event: Event },
}

/// A [`Tap`] with its connection and time.
#[derive(Debug, Clone)]
pub struct Tapped {
    /// The connection: 0 over stdio; over HTTP one per session, numbered
    /// from 1 as they appear.
    pub conn: u64,
    /// Time since the proxy started.
    pub at: Duration,
    pub tap: Tap,
}

/// Taps buffered before the relay waits for the judge: a burst of this
/// many messages is relayed at the relay's own speed, longer floods at the
/// judge's (memory stays bounded).
const TAPS: usize = 1 << 16;

/// Sends taps, stamped against one clock.
#[derive(Debug, Clone)]
pub(crate) struct Tapper {
    tx: mpsc::Sender<Tapped>,
    started: Instant,
}

impl Tapper {
    pub(crate) fn new() -> (Self, mpsc::Receiver<Tapped>) {
        let (tx, rx) = mpsc::channel(TAPS);
        (
            Tapper {
                tx,
                started: Instant::now(),
            },
            rx,
        )
    }

    /// Sends one tap; nobody listening is not an error (the relay goes on).
    pub(crate) async fn tap(&self, conn: u64, tap: Tap) {
        let at = self.started.elapsed();
        let _ = self.tx.send(Tapped { conn, at, tap }).await;
    }
}
