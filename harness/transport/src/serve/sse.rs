//! Server-Sent Events on the peer's side: encoding one event, and the
//! response body that streams one connection's events.
//!
//! ```text
//!   Outlet::push(message) ──► encode (id:, event:, data: per line, blank line)
//!                         ──► unbounded channel ──► SseBody ──► hyper ──► client
//!   sender dropped ─► body ends (after what is queued)    SseBody dropped ─► on_end()
//! ```
//!
//! While idle, the body writes a comment (`: keep-alive`) every
//! [`KEEP_ALIVE`]: a client that went away is then noticed by the failing
//! write, and the body is dropped, which runs its `on_end` hook (the legacy
//! transport reports the client closing its stream that way).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Bytes, Frame, SizeHint};
use tokio::sync::mpsc;
use tokio::time::{interval_at, Instant, Interval};

/// Idle time after which a comment is written to an open stream.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(2);

/// Sends encoded events to one connection.
pub(super) type Outbox = mpsc::UnboundedSender<Bytes>;

/// What runs when a stream's body is dropped (its connection ended).
pub(super) type OnEnd = Box<dyn FnOnce() + Send>;

/// One SSE event: `id:` (if any), `event:`, one `data:` line per line of
/// `data` (CRLF, LF and lone CR all end a line, as the SSE grammar says),
/// then the blank line that dispatches it. Bytes are passed on unchanged,
/// even when they are not UTF-8: the client under test judges them.
pub(super) fn encode(id: Option<&str>, event: &str, data: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(data.len() + 48);
    if let Some(id) = id {
        out.extend_from_slice(b"id: ");
        out.extend_from_slice(id.as_bytes());
        out.push(b'\n');
    }
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(event.as_bytes());
    out.push(b'\n');
    let mut rest = data;
    loop {
        let end = rest
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
            .unwrap_or(rest.len());
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(&rest[..end]);
        out.push(b'\n');
        if end == rest.len() {
            break;
        }
        let skip = if rest[end..].starts_with(b"\r\n") {
            2
        } else {
            1
        };
        rest = &rest[end + skip..];
    }
    out.push(b'\n');
    Bytes::from(out)
}

/// The body of one `text/event-stream` response.
pub(super) struct SseBody {
    rx: mpsc::UnboundedReceiver<Bytes>,
    keep_alive: Interval,
    on_end: Option<OnEnd>,
}

impl SseBody {
    /// A new stream: its sending side and its body.
    pub(super) fn channel(on_end: Option<OnEnd>) -> (Outbox, SseBody) {
        let (tx, rx) = mpsc::unbounded_channel();
        let body = SseBody {
            rx,
            keep_alive: interval_at(Instant::now() + KEEP_ALIVE, KEEP_ALIVE),
            on_end,
        };
        (tx, body)
    }
}

impl Body for SseBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        match this.rx.poll_recv(cx) {
            Poll::Ready(Some(bytes)) => {
                this.keep_alive.reset();
                Poll::Ready(Some(Ok(Frame::data(bytes))))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match this.keep_alive.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(
                    b": keep-alive\n\n",
                ))))),
                Poll::Pending => Poll::Pending,
            },
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

impl Drop for SseBody {
    fn drop(&mut self) {
        if let Some(hook) = self.on_end.take() {
            hook();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_line_by_line() {
        assert_eq!(
            encode(Some("3-1"), "message", br#"{"a":1}"#),
            Bytes::from_static(b"id: 3-1\nevent: message\ndata: {\"a\":1}\n\n")
        );
        assert_eq!(
            encode(None, "endpoint", b"/messages?session=ab"),
            Bytes::from_static(b"event: endpoint\ndata: /messages?session=ab\n\n")
        );
        // Every SSE line ending splits data lines; nothing is lost or joined.
        assert_eq!(
            encode(None, "message", b"{\r\n\"a\":\r1\n}"),
            Bytes::from_static(b"event: message\ndata: {\ndata: \"a\":\ndata: 1\ndata: }\n\n")
        );
        assert_eq!(
            encode(None, "message", b""),
            Bytes::from_static(b"event: message\ndata: \n\n")
        );
    }

    #[tokio::test]
    async fn the_end_hook_runs_when_the_body_is_dropped() {
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let (tx, body) = SseBody::channel(Some(Box::new(move || {
            let _ = done_tx.send(());
        })));
        drop(tx);
        assert!(done_rx.try_recv().is_err());
        drop(body);
        assert!(done_rx.try_recv().is_ok());
    }
}
