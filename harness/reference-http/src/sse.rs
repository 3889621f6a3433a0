//! Server-Sent Events: encoding one event, and the streaming response body
//! that carries a session's events to one HTTP connection.
//!
//! Events are encoded whole (`id:`, `event:`, one `data:` line per line of
//! the message, a blank line) and sent through an unbounded channel; the
//! body ends when the session drops the sending side. While idle, the body
//! writes a comment (`: keep-alive`) every [`KEEP_ALIVE`], so a client that
//! went away is noticed by the failing write.
//!
//! The bodies of POST streams ([`post_channel`]) are counted while they last,
//! in a counter of the server's: the `http-concurrent-post-refused` fault
//! refuses POSTs while one is open. Only that fault reads the count.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures_core::Stream;
use tokio::sync::mpsc;
use tokio::time::{interval_at, Instant, Interval};

use crate::checks::EVENT_STREAM;

/// Idle time after which a comment is written to the stream.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Sends encoded events to one connection.
pub(crate) type EventTx = mpsc::UnboundedSender<Bytes>;

/// One SSE event.
pub(crate) fn event(id: Option<&str>, kind: &str, data: &str) -> Bytes {
    let mut out = String::with_capacity(data.len() + 48);
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    out.push_str("event: ");
    out.push_str(kind);
    out.push('\n');
    for line in data.split('\n') {
        out.push_str("data: ");
        out.push_str(line.strip_suffix('\r').unwrap_or(line));
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}

/// A priming event: an id, a `retry` (milliseconds) and empty data, so a
/// client can resume from it before any message came.
pub(crate) fn priming(id: &str, retry_ms: u64) -> Bytes {
    Bytes::from(format!("id: {id}\nretry: {retry_ms}\ndata: \n\n"))
}

/// Counts one open POST stream body until dropped.
#[derive(Debug)]
struct Counted(Arc<AtomicUsize>);

impl Counted {
    fn new(counter: &Arc<AtomicUsize>) -> Self {
        counter.fetch_add(1, Ordering::SeqCst);
        Counted(Arc::clone(counter))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A new channel and the `200 text/event-stream` response that drains it.
pub(crate) fn channel() -> (EventTx, Response) {
    let (tx, rx) = mpsc::unbounded_channel();
    (tx, response(rx, None))
}

/// [`channel`] for a POST's stream, counted in `counter` while its body lasts.
pub(crate) fn post_channel(counter: &Arc<AtomicUsize>) -> (EventTx, Response) {
    let (tx, rx) = mpsc::unbounded_channel();
    (tx, response(rx, Some(Counted::new(counter))))
}

fn response(rx: mpsc::UnboundedReceiver<Bytes>, counted: Option<Counted>) -> Response {
    let start = Instant::now() + KEEP_ALIVE;
    let body = EventBody {
        rx,
        keep_alive: interval_at(start, KEEP_ALIVE),
        _counted: counted,
    };
    let mut resp = Response::new(Body::from_stream(body));
    *resp.status_mut() = StatusCode::OK;
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

struct EventBody {
    rx: mpsc::UnboundedReceiver<Bytes>,
    keep_alive: Interval,
    /// Held while the body lasts (POST streams only).
    _counted: Option<Counted>,
}

impl Stream for EventBody {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(bytes)) => {
                self.keep_alive.reset();
                Poll::Ready(Some(Ok(bytes)))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => match self.keep_alive.poll_tick(cx) {
                Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n")))),
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed() {
        assert_eq!(
            event(Some("1-1"), "message", "{\"a\":1}"),
            Bytes::from("id: 1-1\nevent: message\ndata: {\"a\":1}\n\n")
        );
        assert_eq!(
            event(None, "message", "{\n\"a\":1}"),
            Bytes::from("event: message\ndata: {\ndata: \"a\":1}\n\n")
        );
    }
}
