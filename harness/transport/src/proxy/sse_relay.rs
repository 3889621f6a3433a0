//! An SSE response body passed on chunk by chunk, as it arrives from the
//! upstream, its events tapped first (each event, then the message its data
//! holds). Nothing waits for an event to complete before bytes move on.
//!
//! ```text
//!  upstream body ──chunk──► SseDecoder ──► Tap::Sse, Tap::Message ──► RelayBody (channel) ──► client
//!  client gone (RelayBody dropped) ──► the relay stops, dropping the upstream body (its connection closes)
//! ```

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use http_body_util::BodyExt;
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use mcpspec_wire::event::{Event, Via};
use mcpspec_wire::SseDecoder;
use tokio::sync::mpsc;

use std::sync::Arc;

use super::order::Order;
use super::{Peer, Tap};

/// Passes an SSE body on chunk by chunk, tapping its events first.
pub(super) async fn relay_sse(
    order: Arc<Order>,
    conn: u64,
    via: Via,
    mut body: Incoming,
    max_event: usize,
    tx: mpsc::Sender<Bytes>,
    mut on_event: impl FnMut(&mcpspec_wire::SseEvent) + Send,
) {
    let tapper = order.as_ref();
    let mut decoder = SseDecoder::new(max_event);
    loop {
        let chunk = body.frame().await;
        let data = match chunk {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => Some(data),
                Err(_) => continue, // trailers
            },
            Some(Err(_)) | None => None,
        };
        match &data {
            Some(d) => decoder.push(d),
            None => decoder.finish(),
        }
        while let Some(item) = decoder.next() {
            match item {
                Ok(ev) => {
                    on_event(&ev);
                    let event = Event::SseEvent {
                        event: ev.event.clone(),
                        id: ev.id.clone(),
                        retry: ev.retry,
                        data_len: ev.data.len(),
                    };
                    tapper.stream_tap(conn, Tap::Sse { via, event }).await;
                    if ev.event == "message" && !ev.data.trim().is_empty() {
                        let tap = Tap::Message {
                            from: Peer::Server,
                            via,
                            bytes: ev.data.into_bytes(),
                            crlf: false,
                        };
                        tapper.stream_tap(conn, tap).await;
                    }
                }
                Err(e) => {
                    let event = Event::SseError(e);
                    tapper.stream_tap(conn, Tap::Sse { via, event }).await;
                }
            }
        }
        let Some(data) = data else {
            gone(tapper, conn, via, Peer::Server).await;
            return;
        };
        if tx.send(data).await.is_err() {
            // The client went away: dropping `body` closes the upstream stream.
            gone(tapper, conn, via, Peer::Client).await;
            return;
        }
    }
}

/// The legacy transport's one stream ended: `side` ended the session.
/// (Streamable HTTP streams end without ending their session.)
async fn gone(tapper: &Order, conn: u64, via: Via, side: Peer) {
    if via != Via::Legacy {
        return;
    }
    let how = match side {
        Peer::Server => "the server ended the SSE stream",
        Peer::Client => "the client closed the SSE stream",
    };
    let event = Event::Closed(how.to_owned());
    tapper
        .stream_tap(conn, Tap::Gone { side, via, event })
        .await;
}

/// A response body fed chunk by chunk from a channel.
pub(super) struct RelayBody {
    rx: mpsc::Receiver<Bytes>,
}

impl RelayBody {
    pub(super) fn channel() -> (mpsc::Sender<Bytes>, RelayBody) {
        let (tx, rx) = mpsc::channel(64);
        (tx, RelayBody { rx })
    }
}

impl Body for RelayBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.get_mut()
            .rx
            .poll_recv(cx)
            .map(|chunk| chunk.map(|b| Ok(Frame::data(b))))
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}
